"""Hand-written, correct plans for real BEHAVIOR tasks (shared by engine tests and checks)."""

from __future__ import annotations

GIFT_ITEMS = [f"{kind}_{i}" for kind in ("candle", "cookie", "cheese", "bow") for i in range(1, 5)]


def gift_baskets_single() -> list[str]:
    """b100/assembling_gift_baskets, one hand: one item per basket per kind (4 x 4 items)."""
    lines = []
    for n, item in enumerate(GIFT_ITEMS):
        basket = f"basket_{n % 4 + 1}"
        lines += [f"navigate({item})", f"grasp({item})", f"navigate({basket})", f"place_inside({item}, {basket})"]
    return lines


def gift_baskets_dual() -> list[str]:
    """Same task with two hands: two items per trip (navigating to their table reaches both)."""
    lines = []
    for n in range(0, len(GIFT_ITEMS), 2):
        a, b = GIFT_ITEMS[n], GIFT_ITEMS[n + 1]
        table = "table_1" if a.startswith(("candle", "cookie")) else "table_2"
        lines += [f"navigate({table})", f"grasp({a})", f"grasp({b})",
                  f"navigate(basket_{n % 4 + 1})", f"place_inside({a}, basket_{n % 4 + 1})",
                  f"navigate(basket_{n % 4 + 2})", f"place_inside({b}, basket_{n % 4 + 2})"]
    return lines


# b1k/clearing_food_from_table_into_fridge: the fridge starts closed and must end closed.
FRIDGE_PLAN = [
    "navigate(half__chicken_1)", "grasp(half__chicken_1)",
    "navigate(tupperware_1)", "place_inside(half__chicken_1, tupperware_1)",
    "navigate(half__apple_pie_1)", "grasp(half__apple_pie_1)",
    "navigate(tupperware_2)", "place_inside(half__apple_pie_1, tupperware_2)",
    "navigate(electric_refrigerator_1)", "open(electric_refrigerator_1)",
    "navigate(tupperware_1)", "grasp(tupperware_1)",
    "navigate(electric_refrigerator_1)", "place_inside(tupperware_1, electric_refrigerator_1)",
    "navigate(tupperware_2)", "grasp(tupperware_2)",
    "navigate(electric_refrigerator_1)", "place_inside(tupperware_2, electric_refrigerator_1)",
    "close(electric_refrigerator_1)",
]

# b100/cleaning_stove: a rag soaked in the running sink cleans the stained, dusty stove; rag and
# dish towel end next to the sink.
STOVE_PLAN = [
    "navigate(cabinet_1)", "open(cabinet_1)", "grasp(rag_1)", "navigate(sink_1)", "place_on_top(rag_1, sink_1)",
    "toggle_on(sink_1)", "soak(rag_1, water_1)", "grasp(rag_1)", "navigate(stove_1)", "clean(stove_1)",
    "navigate(sink_1)", "place_next_to(rag_1, sink_1)", "navigate(cabinet_1)", "grasp(dishtowel_1)",
    "navigate(sink_1)", "place_next_to(dishtowel_1, sink_1)",
]

# b100/making_tea: open cabinet and fridge, slice the lemon with the knife in hand,
# teapot on the stove, soaked tea bag inside it, stove on. No longer a strict pass: the task
# has no water anywhere, so the tea bag cannot be soaked (a file fault, docs/census.md).
TEA_PLAN = [
    "navigate(electric_refrigerator_1)", "open(electric_refrigerator_1)",
    "navigate(cabinet_1)", "open(cabinet_1)", "grasp(knife_1)",
    "navigate(electric_refrigerator_1)", "cut(lemon_1)",
    "navigate(cabinet_1)", "place_inside(knife_1, cabinet_1)",
    "grasp(teapot_1)", "navigate(stove_1)", "place_on_top(teapot_1, stove_1)",
    "navigate(cabinet_1)", "grasp(tea_bag_1)", "soak(tea_bag_1, water_1)",
    "navigate(stove_1)", "place_inside(tea_bag_1, teapot_1)", "toggle_on(stove_1)",
]

# b1k/cook_squash: the squash goes on the cookie sheet in the oven, the oven is switched on.
SQUASH_PLAN = [
    "navigate(butternut_squash_1)", "grasp(butternut_squash_1)",
    "navigate(cookie_sheet_1)", "place_on_top(butternut_squash_1, cookie_sheet_1)",
    "navigate(oven_1)", "toggle_on(oven_1)", "wait_for_cooked(butternut_squash_1)",
]

# b1k/halve_an_egg: cut with a held slicer, then the future halves become real.
EGG_PLAN = [
    "navigate(carving_knife_1)", "grasp(carving_knife_1)", "navigate(hard-boiled_egg_1)",
    "cut(hard-boiled_egg_1)", "make(half__hard-boiled_egg_1)", "make(half__hard-boiled_egg_2)",
]

# b100/cleaning_bathtub: the scrub brush, soaked in the running sink, cleans the stained bathtub
BATHTUB_PLAN = ["navigate(bathtub_1)", "grasp(scrub_brush_1)", "navigate(sink_1)", "place_on_top(scrub_brush_1, sink_1)",
                "toggle_on(sink_1)", "soak(scrub_brush_1, water_1)", "grasp(scrub_brush_1)", "navigate(bathtub_1)",
                "clean(bathtub_1)"]
# b1k/clean_a_suitcase: the rag lying on the bag wipes the dirt off it (dirt comes off dry)
SUITCASE_PLAN = ["navigate(bag_1)", "grasp(rag_1)", "clean(bag_1)"]

#: (task, robot, plan lines) that must strict-pass.
CORRECT_PLANS = [
    ("b100/assembling_gift_baskets", "single", gift_baskets_single()),
    ("b100/assembling_gift_baskets", "dual", gift_baskets_dual()),
    ("b1k/clearing_food_from_table_into_fridge", "single", FRIDGE_PLAN),
    ("b1k/clearing_food_from_table_into_fridge", "dual", FRIDGE_PLAN),
    ("b100/cleaning_stove", "single", STOVE_PLAN),
    ("b100/cleaning_stove", "dual", STOVE_PLAN),
    ("b1k/cook_squash", "single", SQUASH_PLAN),
    ("b1k/halve_an_egg", "single", EGG_PLAN),
    ("b1k/halve_an_egg", "dual", EGG_PLAN),
    ("b100/cleaning_bathtub", "single", BATHTUB_PLAN),
    ("b1k/clean_a_suitcase", "dual", SUITCASE_PLAN),
]


def plan_text(*lines: str) -> str:
    return "\n".join(lines)


def kinds(result) -> list[str]:
    """Error kinds of a VerifyResult, in order."""
    return [e.kind.value for e in result.errors]
