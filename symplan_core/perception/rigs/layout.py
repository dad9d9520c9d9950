"""Lay a BEHAVIOR task's ``:init`` out as marker-tagged boxes whose geometry makes it true.

This is an evaluation tool (see :mod:`symplan_core.perception.rigs.synthetic`), not a detector. The
world is a set of axis-aligned boxes (metres, z up); every rendered thing carries one square tag
(``TAG`` metres, marker plus white quiet zone) on its top surface. Simplifications, all stated
in ``docs/perception.md``:

* rooms are floor rectangles at z = 0 separated by gaps (the void shows there), one per declared
  floor instance (a room with a floor and a lawn has two) or one for a room with none; a floor
  tag is painted on each floor, a room tag on the room's first floor;
* ``ontop`` children stand on their support's top surface; ``inside`` targets are open-topped
  boxes (a base, thin walls and a ledge carrying their tag): closed containers are drawn with
  see-through lids, so their contents are visible; ``under`` targets are frames (a rim on
  invisible legs) whose children stand on the frame's own support;
* substances appear as thin tagged patches: ``covered x s`` on x's top (its ledge for a
  container), ``filled c s`` on c's interior floor; one substance instance is one tag id on
  every patch; substances with no visible relation (``insource`` only) are not drawn;
* fixtures located only by ``inroom`` stand on their room's floor; ``attached``/``draped``/
  ``overlaid`` objects stand on their target; ``future`` objects are not drawn; the agent is a
  tagged box on its floor; ``nextto`` in ``:init`` (absent from all 1116 files) is not laid out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from symplan_core.bddl.model import Problem
from symplan_core.bddl.normalize import to_omnigibson
from symplan_core.engine import compile_task

TAG = 0.10  # tag side (marker + quiet zone), metres
MARGIN = 0.03  # free border of a surface around what stands on it
GAP = 0.04  # between neighbours on a surface
ROOM_GAP = 0.08
WALL = 0.03
BASE = 0.05  # container base: the interior floor is this far above the container's support
PATCH_HEIGHT = 0.03
_SOFT_SUPPORTS = ("attached", "draped", "overlaid")


@dataclass
class Item:
    """One laid-out thing. ``kind``: room, floor_tag, room_tag, solid, container, frame, patch."""

    key: str
    kind: str
    instance: str | None = None
    synset: str | None = None
    room: str | None = None
    height: float = 0.0
    top: list[Item] = field(default_factory=list)  # on the top surface (the ledge of a container)
    interior: list[Item] = field(default_factory=list)  # inside a container / under a frame
    size: tuple[float, float] = (TAG, TAG)
    # placed geometry
    x0: float = 0.0
    y0: float = 0.0
    z0: float = 0.0
    marker_id: int | None = None
    color: tuple[int, int, int] = (128, 128, 128)

    @property
    def x1(self) -> float:
        return self.x0 + self.size[0]

    @property
    def y1(self) -> float:
        return self.y0 + self.size[1]

    @property
    def z1(self) -> float:
        return self.z0 + self.height

    def walk(self):
        yield self
        for child in (*self.top, *self.interior):
            yield from child.walk()


def pack(sizes: list[tuple[float, float]], gap: float, aspect: float = 1.0) -> tuple[list[tuple[float, float]],
                                                                                      tuple[float, float]]:
    """Shelf packing: offsets of rectangles and the packed extent, closest to ``aspect`` (w/d)."""
    if not sizes:
        return [], (0.0, 0.0)
    order = sorted(range(len(sizes)), key=lambda i: (-sizes[i][1], -sizes[i][0], i))
    widest = max(w for w, _ in sizes)
    area = sum((w + gap) * (d + gap) for w, d in sizes)
    best: tuple[float, list[tuple[float, float]], tuple[float, float]] | None = None
    for stretch in (0.8, 1.0, 1.25, 1.5, 2.0):
        row_width = max(widest, math.sqrt(area * aspect) * stretch)
        x = y = row_depth = 0.0
        spots: list[tuple[float, float]] = [(0.0, 0.0)] * len(sizes)
        for i in order:
            w, d = sizes[i]
            if x > 0 and x + w > row_width + 1e-9:
                y, x, row_depth = y + row_depth + gap, 0.0, 0.0
            spots[i] = (x, y)
            x += w + gap
            row_depth = max(row_depth, d)
        extent = (max(spots[i][0] + sizes[i][0] for i in order), y + row_depth)
        score = max(extent[0] / aspect, extent[1])
        if best is None or score < best[0] - 1e-9:
            best = (score, spots, extent)
    assert best is not None, "the first stretch always sets it"
    return best[1], best[2]


class _Builder:
    def __init__(self, problem: Problem, rng: np.random.Generator) -> None:
        self.rng = rng
        self.problem = to_omnigibson(problem)
        world = compile_task(problem).world
        self.world = world
        init = [lit for lit in self.problem.init if not lit.negated]
        self.future = {lit.args[0] for lit in init if lit.predicate == "future" and lit.args}
        objects = [o for o in self.problem.objects if o not in self.future]
        self.substances = {o for o in objects if o in world.objects and world.is_substance(o)}
        self.drawn = {o for o in objects if o not in self.substances}
        self.support: dict[str, tuple[str, str]] = {}
        self.under: dict[str, str] = {}
        self.room_of: dict[str, str] = {}
        self.patches: list[tuple[str, str, str]] = []  # (relation, substance, host)
        soft: dict[str, tuple[str, str]] = {}
        for lit in init:
            p, a = lit.predicate, lit.args
            if p == "inroom" and len(a) == 2:
                self.room_of.setdefault(a[0], a[1])
            elif len(a) != 2 or a[0] == a[1]:
                continue
            elif p in ("covered", "filled", "contains") and a[1] in self.substances and a[0] in self.drawn:
                self.patches.append(("covered" if p == "covered" else "filled", a[1], a[0]))
            elif p in ("ontop", "inside") and a[0] in self.substances and a[1] in self.drawn:
                self.patches.append(("covered" if p == "ontop" else "filled", a[0], a[1]))
            elif a[0] not in self.drawn or a[1] not in self.drawn:
                continue
            elif p in ("ontop", "inside"):
                self.support.setdefault(a[0], (p, a[1]))
            elif p == "under":
                self.under.setdefault(a[0], a[1])
            elif p in _SOFT_SUPPORTS:
                soft.setdefault(a[0], (p, a[1]))
        for obj, link in soft.items():
            self.support.setdefault(obj, ("ontop", link[1]))
        self._break_cycles()

    def _break_cycles(self) -> None:
        for obj in list(self.support):
            seen, cur = {obj}, self.support.get(obj)
            while cur is not None:
                if cur[1] in seen:
                    del self.support[obj]
                    break
                seen.add(cur[1])
                cur = self.support.get(cur[1])

    def _floor_room(self, floor: str) -> str:
        return self.room_of.get(floor) or f"room_{floor.rsplit('_', 1)[-1]}"

    def build(self) -> list[Item]:
        floors = [o for o in self.problem.objects if o in self.world.floors and o in self.drawn]
        rooms: list[str] = []
        for obj, room in self.room_of.items():
            if obj in self.drawn and room not in rooms:
                rooms.append(room)
        for floor_name in floors:
            if self._floor_room(floor_name) not in rooms:
                rooms.append(self._floor_room(floor_name))
        if not rooms:
            rooms.append("room")
        # One floor region per floor instance (a room with a floor and a lawn has two), one per
        # room without any; the room's tag goes into its first region.
        region_of_floor: dict[str, Item] = {}
        first: dict[str, Item] = {}
        ordered: list[Item] = []
        for room in rooms:
            mine: list[str | None] = [f for f in floors if self._floor_room(f) == room] or [None]
            for floor in mine:
                region = Item(key=f"room:{room}:{floor or ''}", kind="room", room=room)
                if room not in first:
                    first[room] = region
                    region.top.append(Item(key=f"roomtag:{room}", kind="room_tag", room=room))
                if floor is not None:
                    region_of_floor[floor] = region
                    region.top.append(Item(key=floor, kind="floor_tag", instance=floor,
                                           synset=self.problem.objects[floor], room=room))
                ordered.append(region)
        regions = first
        items: dict[str, Item] = {}
        for obj in self.problem.objects:
            if obj in self.drawn and obj not in self.world.floors:
                items[obj] = Item(key=obj, kind="solid", instance=obj, synset=self.problem.objects[obj])
        inside_targets = {t for rel, t in self.support.values() if rel == "inside"}
        inside_targets |= {host for rel, _s, host in self.patches if rel == "filled"}
        frames = {t for o, t in self.under.items() if t in items and t not in inside_targets and o in items}
        for obj, item in items.items():
            if obj in inside_targets:
                item.kind = "container"
            elif obj in frames:
                item.kind = "frame"
        default_room = regions[rooms[0]]
        for obj, item in items.items():
            link = self.support.get(obj)
            if obj in self.under and self.under[obj] in frames:
                items[self.under[obj]].interior.append(item)
            elif link and link[1] in items:
                holder = items[link[1]]
                (holder.interior if link[0] == "inside" and holder.kind == "container" else holder.top).append(item)
            elif link and link[1] in region_of_floor:
                region_of_floor[link[1]].top.append(item)
            elif obj in self.room_of and self.room_of[obj] in regions:
                regions[self.room_of[obj]].top.append(item)
            else:
                default_room.top.append(item)
        for rel, substance, host in self.patches:
            target = items.get(host) or region_of_floor.get(host)
            if target is None:
                continue
            patch = Item(key=f"{substance}@{host}", kind="patch", instance=substance,
                         synset=self.problem.objects[substance], height=PATCH_HEIGHT)
            (target.interior if rel == "filled" and target.kind == "container" else target.top).append(patch)
        for obj, item in items.items():
            item.height = self._base_height(obj)
        return ordered

    def _base_height(self, obj: str) -> float:
        if obj == self.world.agent:
            return 0.3
        fixture = self.world.is_fixture(obj) or (obj in self.room_of and obj not in self.support)
        if fixture:
            return round(float(self.rng.uniform(0.2, 0.35)), 3)
        return round(float(self.rng.uniform(0.06, 0.12)), 3)


def _measure(item: Item) -> float:
    """Size an item bottom-up; returns its stack height (its top plus what stands on it)."""
    top_stack = 0.0
    for child in item.top:
        top_stack = max(top_stack, _measure(child))
    inner_stack = 0.0
    for child in item.interior:
        inner_stack = max(inner_stack, _measure(child))
    tagged = item.kind not in ("room",)
    top_sizes = ([(TAG, TAG)] if tagged and item.kind not in ("floor_tag", "room_tag") else []) + \
        [c.size for c in item.top]
    if item.kind in ("floor_tag", "room_tag"):
        item.size = (TAG, TAG)
        return 0.0
    if item.kind == "room":
        _spots, (w, d) = pack([c.size for c in item.top], GAP, aspect=4 / 3)
        item.size = (w + 2 * MARGIN, d + 2 * MARGIN)
        return top_stack
    _spots, (tw, td) = pack(top_sizes, GAP)
    if item.kind == "patch":
        item.size = (TAG, TAG)
        return item.height
    if item.kind in ("container", "frame"):
        _spots, (iw, idp) = pack([c.size for c in item.interior], GAP)
        iw, idp = max(iw, TAG), max(idp, TAG)
        ledge = td + 2 * MARGIN
        item.size = (max(iw + 2 * MARGIN, tw + 2 * MARGIN) + 2 * WALL, idp + 2 * MARGIN + ledge + WALL)
        base = BASE if item.kind == "container" else 0.0
        item.height = max(item.height, base + inner_stack + 0.05)
        return item.height + top_stack
    item.size = (tw + 2 * MARGIN, td + 2 * MARGIN)
    return item.height + top_stack


def _place(item: Item, x0: float, y0: float, z0: float) -> None:
    item.x0, item.y0, item.z0 = x0, y0, z0
    if item.kind in ("floor_tag", "room_tag", "patch") and not item.top:
        return
    tagged = item.kind not in ("room",)
    top_children = list(item.top)
    sizes = ([(TAG, TAG)] if tagged else []) + [c.size for c in top_children]
    spots, (tw, td) = pack(sizes, GAP, aspect=4 / 3 if item.kind == "room" else 1.0)
    if tagged:
        spots = spots[1:]
    surface_z = z0 if item.kind == "room" else item.z1
    if item.kind in ("container", "frame"):
        ledge = ledge_y0(item)
        for child, (sx, sy) in zip(top_children, spots, strict=True):
            _place(child, x0 + WALL + MARGIN + sx, ledge + MARGIN + sy, surface_z)
        ispots, _ = pack([c.size for c in item.interior], GAP)
        floor_z = z0 + (BASE if item.kind == "container" else 0.0)
        for child, (sx, sy) in zip(item.interior, ispots, strict=True):
            _place(child, x0 + WALL + MARGIN + sx, y0 + WALL + MARGIN + sy, floor_z)
        return
    for child, (sx, sy) in zip(top_children, spots, strict=True):
        _place(child, x0 + MARGIN + sx, y0 + MARGIN + sy, surface_z)


def ledge_y0(item: Item) -> float:
    """Where a container's (or frame's) ledge begins: it carries its tag and what stands on it."""
    _spots, (_tw, td) = pack([(TAG, TAG)] + [c.size for c in item.top], GAP)
    return item.y1 - (td + 2 * MARGIN)


def tag_spot(item: Item) -> tuple[float, float, float]:
    """Lower-left corner (x, y) and height of an item's tag."""
    if item.kind in ("floor_tag", "room_tag", "patch"):
        return item.x0, item.y0, item.z1
    spots, _extent = pack([(TAG, TAG)] + [c.size for c in item.top], GAP)
    sx, sy = spots[0]
    if item.kind in ("container", "frame"):
        return item.x0 + WALL + MARGIN + sx, ledge_y0(item) + MARGIN + sy, item.z1
    return item.x0 + MARGIN + sx, item.y0 + MARGIN + sy, item.z1


def lay_out(problem: Problem, rng: np.random.Generator) -> list[Item]:
    """Room regions (with everything in them) placed side by side, lower-left corner at the origin."""
    rooms = _Builder(problem, rng).build()
    for room in rooms:
        _measure(room)
    spots, _extent = pack([r.size for r in rooms], ROOM_GAP, aspect=4 / 3)
    for room, (sx, sy) in zip(rooms, spots, strict=True):
        _place(room, sx, sy, 0.0)
    return rooms
