"""The planner's camera intake without DDS: pairing, bounded buffer, and each camera health state."""

from __future__ import annotations

import time
from types import SimpleNamespace

import numpy as np
import pytest

from symplan_core.rosio.images import numpy_to_image_fields
from symplan_core.runtime.camera import CameraFeed, CameraUnavailable
from symplan_core.runtime.config import CameraSection
from symplan_core.runtime.health import ERROR, OK, WARN

TOPICS = dict(rgb_topic="/cam/rgb", depth_topic="/cam/depth", info_topic="/cam/info")


def _stamped(fields: dict, t: float) -> SimpleNamespace:
    stamp = SimpleNamespace(sec=int(t), nanosec=int(round((t % 1) * 1e9)))
    return SimpleNamespace(header=SimpleNamespace(stamp=stamp), **fields)


def _rgb(t: float, size=(24, 32)) -> SimpleNamespace:
    return _stamped(numpy_to_image_fields(np.full((*size, 3), 90, np.uint8), "rgb8"), t)


def _depth(t: float, size=(24, 32)) -> SimpleNamespace:
    return _stamped(numpy_to_image_fields(np.full(size, 1500, np.uint16), "16UC1"), t)


INFO = SimpleNamespace(k=[300.0, 0, 16, 0, 300.0, 12, 0, 0, 1], width=32, height=24)


def _feed(**kw) -> CameraFeed:
    return CameraFeed(CameraSection(**{**TOPICS, **kw}), required=True)


def test_paired_frames_are_buffered_and_served_with_the_intrinsics() -> None:
    feed = _feed()
    feed.on_info(INFO)
    for k in range(3):
        assert feed.on_depth(_depth(k * 0.5)) is None
        assert feed.on_rgb(_rgb(k * 0.5)) is None
    frames, intrinsics = feed.wait_for_frames(window_s=5.0, timeout_s=0.1)
    assert len(frames) == 3 and frames[0].depth[0, 0] == pytest.approx(1.5)
    assert intrinsics.fx == 300.0
    assert feed.health().level == OK and feed.health().message == "receiving frames"


def test_the_buffer_is_bounded_and_thinned_to_the_kept_rate() -> None:
    feed = _feed(buffer_frames=4, max_rate_hz=5.0)
    feed.on_info(INFO)
    for k in range(100):  # 100 frames at 100 Hz
        feed.on_depth(_depth(k * 0.01))
        feed.on_rgb(_rgb(k * 0.01))
    frames = feed.recent(window_s=60.0)
    assert len(frames) == 4
    assert all(b.stamp - a.stamp >= 0.2 - 1e-9 for a, b in zip(frames, frames[1:], strict=False))


def test_no_frames_within_the_wait_is_a_camera_reason() -> None:
    feed = _feed()
    started = time.monotonic()
    with pytest.raises(CameraUnavailable, match="no frames on /cam/rgb within 0.2 s"):
        feed.wait_for_frames(window_s=1.0, timeout_s=0.2)
    assert time.monotonic() - started < 2.0
    assert feed.health().level == WARN and "no frames on /cam/rgb" in feed.health().message


def test_colour_without_depth_is_reported_as_unsynchronised_depth() -> None:
    feed = _feed(stale_after_s=0.2)
    feed.on_info(INFO)
    feed.on_depth(_depth(0.0))
    feed.on_rgb(_rgb(0.0))  # one good pair, then depth stops
    time.sleep(0.3)
    for k in range(1, 6):
        feed.on_rgb(_rgb(k * 0.1 + 10.0))
    problem = feed.frame_problem()
    assert problem.startswith("unsynchronised depth") and "/cam/depth" in problem
    assert feed.health().level == WARN


def test_stale_frames_are_reported_with_their_age() -> None:
    feed = _feed(stale_after_s=0.1)
    feed.on_info(INFO)
    feed.on_depth(_depth(0.0))
    feed.on_rgb(_rgb(0.0))
    time.sleep(0.25)
    assert feed.frame_problem().startswith("stale frames: the last one arrived")
    with pytest.raises(CameraUnavailable, match="stale frames"):
        feed.wait_for_frames(window_s=0.1, timeout_s=0.05)


@pytest.mark.parametrize(("message", "reason"), [
    (_stamped({"height": 24, "width": 32, "encoding": "yuv9", "is_bigendian": 0, "step": 96, "data": b"\0" * 2304}, 0),
     "unsupported_encoding"),
    (_stamped({"height": 24, "width": 32, "encoding": "rgb8", "is_bigendian": 0, "step": 96, "data": b"\0" * 10}, 0),
     "short_data"),
])
def test_a_bad_image_is_counted_and_reported_never_raised(message, reason) -> None:
    feed = _feed()
    error = feed.on_rgb(message)
    assert error is not None and feed.rejected == 1
    health = feed.health()
    assert health.level == WARN and reason in health.message


def test_depth_of_another_size_is_rejected_with_its_reason() -> None:
    feed = _feed()
    feed.on_info(INFO)
    feed.on_depth(_depth(1.0, size=(12, 16)))
    feed.on_rgb(_rgb(1.0))
    assert feed.rejected == 1 and "depth_size_mismatch" in feed.health().message


def test_an_unavailable_detector_is_an_error_that_fails_goals_at_once() -> None:
    feed = _feed()
    feed.detector_error = "no fiducial map at /nowhere.yaml"
    assert feed.health().level == ERROR and "detector unavailable" in feed.health().message
    started = time.monotonic()
    with pytest.raises(CameraUnavailable, match="detector unavailable"):
        feed.wait_for_frames(window_s=1.0, timeout_s=30.0)
    assert time.monotonic() - started < 1.0


def test_a_camera_source_without_depth_and_info_topics_is_a_configuration_error() -> None:
    feed = CameraFeed(CameraSection(rgb_topic="/cam/rgb"), required=True)
    assert feed.health().level == ERROR
    assert "camera.depth_topic, camera.info_topic is empty" in feed.health().message


def test_a_bddl_node_with_a_camera_topic_reports_ok_while_no_frames_come() -> None:
    feed = CameraFeed(CameraSection(rgb_topic="/cam/rgb"))
    assert feed.health().level == OK
