"""What a goal over a perceived scene may name beyond what was seen: :func:`scene_additions`.

A camera sees objects, not the salt in a shaker, the water a sink gives, or the egg halves a
task will make. Retrieval brings such things in from the activity's file (its prior); an LLM
goal has no file, so without this it could never ask for "the beans seasoned with salt" or "the
egg halved". Each addition rests on something the scene shows, and on nothing else:

* **a substance in a container whose BEHAVIOR name says what it holds**: ``salt__shaker`` holds
  ``salt``, ``cooking_oil__bottle`` holds ``cooking_oil``, ``bag__of__flour`` holds ``flour``. The
  fact is the one the released files state: ``insource`` for an applier (a shaker, an atomizer),
  ``filled`` otherwise;
* **water, where the scene has a tap** (a sink, a water dispenser): the engine lets a tap that is
  on give water (``engine.world.WATER_TAPS``), so no fact is needed;
* **a transformed object whose name says what it is made from**, for an ingredient the scene
  shows (or one of the substances above): ``half__``, ``diced__``, ``cooked__``, ``melted__``,
  ``cooked__diced__`` of it, where BEHAVIOR has that synset, and only where the scene can do what
  the name says (``engine.goal_places.can_make``: a slicer for ``half__``/``diced__``, a heat source
  for ``cooked__``/``melted__``; Qwen 1.5B asked for diced peaches in a kitchen with no knife).
  It is declared ``future``: the engine's ``make`` then needs the ingredient at hand and processed
  as the name says (cut with a slicer in hand, heated on a source that is on), so a goal that asks
  for it is judged like a released one.

* **a dish, drink or mixture the request asks to make** (``object_words.requested_products``: "make
  some tomato rice", "whip up some eggnog"), which BEHAVIOR names without an ingredient. The
  request is what vouches for it, in the number it says. It is declared ``future`` and made as the
  released files make such products (``make`` checks no ingredients: none is in its name).

Other products BEHAVIOR names without an ingredient (``beef_stew``, ``eggnog``) are not added
unasked: nothing in the scene says what they are made from or that anyone wants one.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from symplan_core.bddl import And, Atom, Literal, Problem
from symplan_core.engine.checks import processes_between
from symplan_core.engine.goal_places import can_make
from symplan_core.engine.world import build_world
from symplan_core.perception.goal_reading import PRODUCT_PREFIXES, package_of
from symplan_core.tasks import synset_info, synset_table

if TYPE_CHECKING:
    from symplan_core.perception.object_words import RequestedProduct

#: Container synsets that hand out what they hold as particles (B-1K files say ``insource``).
_APPLIERS = frozenset({"particleApplier", "particleSource", "fluidSource"})
_TAPS = frozenset({"sink.n.01", "water__dispenser.n.01"})
_WATER = "water.n.06"
#: At most this many instances of one product (two halves of each of two eggs).
MAX_PER_PRODUCT = 4


@dataclass(frozen=True)
class Addition:
    """One thing a goal may name that the scene does not show, and what vouches for it."""

    type: str
    facts: tuple[Literal, ...]  # prior facts it comes with (``(future x)``, ``(insource shaker x)``)
    because: str  # the scene object(s) it rests on, for notes and provenance

    @property
    def made(self) -> bool:
        """A product the goal may ask into being (declared ``future``)."""
        return any(f.predicate == "future" for f in self.facts)


def _base(synset: str) -> str:
    return synset.split(".n.")[0]


def _by_base() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for synset in synset_table():
        out.setdefault(_base(synset), []).append(synset)
    return out


def _substance_named(base: str, index: Mapping[str, list[str]]) -> str | None:
    """The one substance synset spelled ``base`` (``salt`` -> ``salt.n.02``), if exactly one."""
    found = [s for s in index.get(base, ()) if (info := synset_info(s)) is not None and info.is_substance]
    return found[0] if len(found) == 1 else None


def _contents(container: str, index: Mapping[str, list[str]]) -> str | None:
    """The substance a container's name says it holds: ``X__of__Y`` holds Y, ``Y__bottle`` Y."""
    held = package_of(container)
    return None if held is None else _substance_named(held, index)


def _instance(synset: str, k: int) -> str:
    return f"{synset}_{k}"


def scene_additions(objects: Mapping[str, str], requested: Sequence[RequestedProduct] = ()) -> dict[str, Addition]:
    """Instance -> :class:`Addition` for the scene ``objects`` (instance -> synset, omnigibson
    vocabulary) and the products the request asks to make (``requested``). Names never clash with
    the scene's own instances."""
    index = _by_base()
    taken = set(objects)
    out: dict[str, Addition] = {}

    def add(synset: str, count: int, facts_for, because: str) -> None:
        k = 0
        for n in range(1, count + 1):
            while _instance(synset, n + k) in taken:
                k += 1
            inst = _instance(synset, n + k)
            taken.add(inst)
            out[inst] = Addition(synset, tuple(facts_for(inst)), because)

    held: dict[str, list[tuple[str, str]]] = {}  # substance -> [(container instance, predicate)]
    for inst, typ in sorted(objects.items()):
        substance = _contents(typ, index)
        if substance is not None and substance not in objects.values():
            info = synset_info(typ)
            predicate = "insource" if info is not None and info.abilities & _APPLIERS else "filled"
            held.setdefault(substance, []).append((inst, predicate))
    for substance, containers in sorted(held.items()):
        add(substance, 1, lambda x, cs=containers: [Literal(Atom(p, (c, x))) for c, p in cs],
            " and ".join(c for c, _ in containers))
    if _WATER not in objects.values() and _WATER not in held and (taps := sorted(
            i for i, t in objects.items() if t in _TAPS)):
        add(_WATER, 1, lambda _x: [], f"{taps[0]} (a tap)")

    ingredients: dict[str, int] = {}
    for typ in [*objects.values(), *(a.type for a in out.values())]:
        ingredients[typ] = ingredients.get(typ, 0) + 1
    world = build_world(Problem("scene", "omnigibson", dict(objects), (), And(())), goal_evidence=False)
    for typ, count in sorted(ingredients.items()):
        for prefix in PRODUCT_PREFIXES:
            for product in index.get(prefix + _base(typ), ()):
                info = synset_info(product)
                if (info is None or product in objects.values()
                        or not can_make(world, processes_between(typ, product))):
                    continue
                n = 1 if info.is_substance else min(MAX_PER_PRODUCT, count * (2 if prefix == "half__" else 1))
                add(product, n, lambda x: [Literal(Atom("future", (x,)))], f"made from {typ}")
    offered = {a.type for a in out.values()}
    for asked in requested:
        if asked.synset not in offered and asked.synset not in objects.values():
            offered.add(asked.synset)
            add(asked.synset, asked.count, lambda x: [Literal(Atom("future", (x,)))],
                f"the request asks to make it ({asked.phrase!r})")
    return out


def named_additions(goal_args: set[str], additions: Mapping[str, Addition],
                    quantified: Collection[str] = ()) -> dict[str, Addition]:
    """The additions a goal names (its atoms' arguments, ``?inst`` read as ``inst``), and every
    addition of a type it quantifies over (``quantified``: "forall half logs" needs them all)."""
    names = {a.lstrip("?") for a in goal_args}
    return {i: a for i, a in additions.items() if i in names or a.type in quantified}
