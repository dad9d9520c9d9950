"""Colour/depth pairing by stamp: nearest partner within tolerance, bounded queues, clock jumps."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from symplan_core.rosio.sync import StampSync


def test_each_colour_frame_pairs_with_the_nearest_depth_within_tolerance() -> None:
    sync: StampSync[str] = StampSync(tolerance_s=0.02)
    assert sync.add_depth(0.99, "d0") == []
    assert sync.add_color(1.00, "c1") == []  # held: a closer depth may still come
    pairs = sync.add_depth(1.005, "d1")
    assert [(p.color.item, p.depth.item) for p in pairs] == [("c1", "d1")]
    assert sync.stats.unmatched_depth == 1  # d0 can never pair with a later colour frame better


def test_colour_without_depth_is_counted_unmatched_once_the_stream_moves_on() -> None:
    sync: StampSync[str] = StampSync(tolerance_s=0.01)
    for k in range(5):
        assert sync.add_color(k * 0.1, f"c{k}") == []
    assert sync.stats.unmatched_color == 4  # the last one is still waiting
    assert sync.stats.pairs == 0


def test_queues_stay_bounded_when_one_stream_never_arrives() -> None:
    sync: StampSync[int] = StampSync(tolerance_s=0.0, queue=8)
    for k in range(1000):
        sync.add_depth(float(k), k)
    assert sync.pending()[1] <= 8


def test_a_backwards_clock_jump_drops_pending_frames_and_is_counted() -> None:
    sync: StampSync[str] = StampSync(tolerance_s=0.05)
    sync.add_color(100.0, "old")
    assert sync.add_depth(3.0, "new-depth") == []
    assert sync.stats.clock_jumps == 1
    assert sync.stats.unmatched_color == 1
    pairs = sync.add_color(2.99, "new")  # a depth frame at or after it exists: paired at once
    assert [(p.color.item, p.depth.item) for p in pairs] == [("new", "new-depth")]


def test_without_depth_colour_frames_pass_straight_through() -> None:
    sync: StampSync[str] = StampSync(with_depth=False)
    pairs = sync.add_color(1.0, "c")
    assert len(pairs) == 1 and pairs[0].depth is None
    assert sync.add_depth(1.0, "ignored") == []


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.floats(0, 10, allow_nan=False)), max_size=60),
       st.floats(0, 0.2, allow_nan=False))
def test_pairs_are_within_tolerance_and_use_each_frame_at_most_once(events, tolerance) -> None:
    sync: StampSync[int] = StampSync(tolerance_s=tolerance)
    pairs = []
    for index, (is_color, stamp) in enumerate(sorted(events, key=lambda e: e[1])):
        pairs += (sync.add_color if is_color else sync.add_depth)(stamp, index)
    for pair in pairs:
        assert pair.skew_s <= tolerance + 1e-12
    colors = [p.color.item for p in pairs]
    depths = [p.depth.item for p in pairs]
    assert len(set(colors)) == len(colors) and len(set(depths)) == len(depths)
