"""Key-frame selection: bounded, sharp, and only frames that show something new."""

from __future__ import annotations

import cv2
import numpy as np

from symplan_core.perception import Frame, KeyFrameConfig, KeyFrameSelector


def _scene(shift: int, blur: float = 0.0) -> Frame:
    rgb = np.full((120, 160, 3), 90, np.uint8)
    for k in range(6):
        x = (20 + 25 * k + shift) % 150
        cv2.rectangle(rgb, (x, 20 + 10 * k), (x + 12, 40 + 10 * k), (250, 250, 250), -1)
    if blur:
        rgb = cv2.GaussianBlur(rgb, (0, 0), blur)
    return Frame(rgb, stamp=float(shift))


def test_selector_never_holds_more_than_max_frames() -> None:
    selector = KeyFrameSelector(KeyFrameConfig(max_frames=3))
    for shift in range(0, 200, 7):
        selector.push(_scene(shift))
        assert len(selector.key_frames()) <= 3
    assert len(selector.key_frames()) == 3
    stamps = [f.stamp for f in selector.key_frames()]
    assert stamps == sorted(stamps) and stamps[0] == 0.0  # stream order, first frame kept


def test_near_duplicates_are_replaced_only_by_sharper_frames() -> None:
    selector = KeyFrameSelector(KeyFrameConfig(max_frames=4, min_sharpness=1.0))
    assert selector.push(_scene(0, blur=2.0))
    assert selector.push(_scene(0))  # same view, sharper: replaces it
    assert not selector.push(_scene(0, blur=1.5))  # same view, blurrier: dropped
    assert len(selector.key_frames()) == 1 and selector.key_frames()[0].stamp == 0.0
    assert selector.push(_scene(40))  # a new view
    assert len(selector.key_frames()) == 2


def test_blurry_frames_are_skipped_unless_nothing_sharp_arrives() -> None:
    sharp_limit = KeyFrameConfig(min_sharpness=1e9)  # nothing counts as sharp
    selector = KeyFrameSelector(sharp_limit)
    for blur in (3.0, 0.5, 2.0):
        assert not selector.push(_scene(0, blur=blur))
    (kept,) = selector.key_frames()  # the sharpest of the blurry ones
    assert np.array_equal(kept.rgb, _scene(0, blur=0.5).rgb)
