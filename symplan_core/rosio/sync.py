"""Pair colour and depth messages by stamp (``message_filters`` is not on PyPI, so this is ours).

:class:`StampSync` is the approximate-time policy a depth camera needs: each colour frame is
paired with the depth frame whose stamp is nearest, if that is within ``tolerance_s``. Both
queues are bounded, so a topic that stops (or never starts) cannot grow memory. The same object
serves the live node (messages in arrival order) and bag replay (messages in log order), and it
keeps the counts the camera diagnostics report: colour frames that found no depth partner, and
stamps that jumped backwards (a restarted driver or a looped bag), after which it starts afresh.
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass
from typing import Generic, TypeVar

Item = TypeVar("Item")
#: A stamp this much (plus the tolerance) earlier than the latest seen is a clock jump, not jitter.
CLOCK_JUMP_S = 1.0


@dataclass(frozen=True)
class Stamped(Generic[Item]):
    stamp: float
    item: Item


@dataclass(frozen=True)
class Pair(Generic[Item]):
    color: Stamped[Item]
    depth: Stamped[Item] | None  # None only when the synchroniser runs without depth

    @property
    def skew_s(self) -> float:
        return abs(self.color.stamp - self.depth.stamp) if self.depth is not None else 0.0


@dataclass
class SyncStats:
    pairs: int = 0
    unmatched_color: int = 0  # colour frames dropped with no depth within tolerance
    unmatched_depth: int = 0  # depth frames dropped with no colour partner
    clock_jumps: int = 0  # stamps that went backwards by more than the tolerance


class StampSync(Generic[Item]):
    """Approximate-time pairing of a colour stream with a depth stream.

    ``with_depth=False`` passes colour frames straight through (a camera without depth).
    A colour frame is held until a depth frame at least as late as it arrives (or ``tolerance_s``
    has passed in stream time), so the nearest depth is chosen, not merely the first close one.
    """

    def __init__(self, tolerance_s: float = 0.05, with_depth: bool = True, queue: int = 32) -> None:
        if tolerance_s < 0:
            raise ValueError("tolerance_s must be >= 0")
        self.tolerance_s = tolerance_s
        self.with_depth = with_depth
        self.stats = SyncStats()
        self._color: deque[Stamped[Item]] = deque(maxlen=queue)
        self._depth: deque[Stamped[Item]] = deque(maxlen=queue)
        self._latest = float("-inf")
        self._lock = threading.Lock()  # colour and depth callbacks may run on different threads

    def _note_stamp(self, stamp: float) -> None:
        if stamp < self._latest - self.tolerance_s - CLOCK_JUMP_S:
            # The source restarted (or a bag looped). Pending frames belong to the old clock.
            self.stats.clock_jumps += 1
            self.stats.unmatched_color += len(self._color)
            self.stats.unmatched_depth += len(self._depth)
            self._color.clear()
            self._depth.clear()
            self._latest = stamp
        else:
            self._latest = max(self._latest, stamp)

    def add_color(self, stamp: float, item: Item) -> list[Pair[Item]]:
        with self._lock:
            self._note_stamp(stamp)
            if not self.with_depth:
                self.stats.pairs += 1
                return [Pair(Stamped(stamp, item), None)]
            if len(self._color) == self._color.maxlen:
                self.stats.unmatched_color += 1
            self._color.append(Stamped(stamp, item))
            return self._match()

    def add_depth(self, stamp: float, item: Item) -> list[Pair[Item]]:
        with self._lock:
            if not self.with_depth:
                return []
            self._note_stamp(stamp)
            if len(self._depth) == self._depth.maxlen:
                self.stats.unmatched_depth += 1
            self._depth.append(Stamped(stamp, item))
            return self._match()

    def _match(self) -> list[Pair[Item]]:
        out: list[Pair[Item]] = []
        while self._color:
            color = self._color[0]
            waiting = not self._depth or self._depth[-1].stamp < color.stamp
            # No depth at or after this frame yet: wait, unless the stream has moved on past tolerance.
            if waiting and self._latest - color.stamp <= self.tolerance_s:
                break
            best = self._nearest(color.stamp)
            self._color.popleft()
            if best is None:
                self.stats.unmatched_color += 1
            else:
                out.append(self._emit(color, best))
        return out

    def _nearest(self, stamp: float) -> Stamped[Item] | None:
        candidates = [d for d in self._depth if abs(d.stamp - stamp) <= self.tolerance_s]
        return min(candidates, key=lambda d: abs(d.stamp - stamp)) if candidates else None

    def _emit(self, color: Stamped[Item], depth: Stamped[Item]) -> Pair[Item]:
        # Depth older than the one used can never pair with a later colour frame any better.
        while self._depth and self._depth[0].stamp < depth.stamp:
            self._depth.popleft()
            self.stats.unmatched_depth += 1
        self._depth.popleft()
        self.stats.pairs += 1
        return Pair(color, depth)

    def pending(self) -> tuple[int, int]:
        with self._lock:
            return len(self._color), len(self._depth)
