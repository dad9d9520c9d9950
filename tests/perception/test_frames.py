"""Frames, intrinsics and file readers: every bad input is a typed error."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from symplan_core.perception import (
    CameraIntrinsics,
    DepthError,
    Frame,
    FrameError,
    IntrinsicsError,
    frames_from_dir,
    frames_from_video,
    read_depth,
    read_image,
)


def _png(path, image) -> None:
    assert cv2.imwrite(str(path), image)


def test_frame_rejects_arrays_that_are_not_rgb_uint8() -> None:
    with pytest.raises(FrameError, match="H x W x 3 uint8"):
        Frame(np.zeros((48, 64), np.uint8))
    with pytest.raises(FrameError, match="H x W x 3 uint8"):
        Frame(np.zeros((48, 64, 3), np.float32))
    with pytest.raises(FrameError, match="too small"):
        Frame(np.zeros((4, 4, 3), np.uint8))


def test_frame_rejects_depth_of_the_wrong_size_or_type() -> None:
    rgb = np.zeros((48, 64, 3), np.uint8)
    with pytest.raises(DepthError, match="depth is 32x48 but the image is 64x48"):
        Frame(rgb, np.zeros((48, 32), np.float32))
    with pytest.raises(DepthError, match="float32"):
        Frame(rgb, np.zeros((48, 64), np.uint16))
    with pytest.raises(FrameError, match="pose"):
        Frame(rgb, pose=np.eye(3))


def test_read_image_returns_rgb_and_converts_grey(tmp_path) -> None:
    bgr = np.zeros((20, 30, 3), np.uint8)
    bgr[..., 0] = 255  # blue in OpenCV's order
    _png(tmp_path / "c.png", bgr)
    assert read_image(tmp_path / "c.png")[0, 0].tolist() == [0, 0, 255]
    _png(tmp_path / "g.png", np.full((20, 30), 7, np.uint8))
    assert read_image(tmp_path / "g.png").shape == (20, 30, 3)


@pytest.mark.parametrize("suffix", [".png", ".jpg"])
def test_truncated_images_are_errors_not_half_decoded(tmp_path, suffix) -> None:
    image = (np.random.default_rng(0).random((60, 80, 3)) * 255).astype(np.uint8)
    path = tmp_path / f"full{suffix}"
    _png(path, image)
    cut = tmp_path / f"cut{suffix}"
    cut.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])
    with pytest.raises(FrameError, match="truncated"):
        read_image(cut)


def test_unknown_encodings_and_missing_files_are_errors(tmp_path) -> None:
    (tmp_path / "x.png").write_bytes(b"GIF89a" + bytes(100))
    with pytest.raises(FrameError, match="unknown image encoding"):
        read_image(tmp_path / "x.png")
    (tmp_path / "y.png").write_bytes(b"")
    with pytest.raises(FrameError, match="unknown image encoding"):
        read_image(tmp_path / "y.png")
    with pytest.raises(FrameError, match="cannot read"):
        read_image(tmp_path / "missing.png")


def test_read_depth_scales_16_bit_and_refuses_8_bit(tmp_path) -> None:
    _png(tmp_path / "d.png", np.full((10, 12), 1500, np.uint16))
    depth = read_depth(tmp_path / "d.png")
    assert depth.dtype == np.float32 and np.allclose(depth, 1.5)
    _png(tmp_path / "e.png", np.full((10, 12), 15, np.uint8))
    with pytest.raises(DepthError, match="unknown depth encoding"):
        read_depth(tmp_path / "e.png")
    np.save(tmp_path / "f.npy", np.ones((10, 12, 3), np.float32))
    with pytest.raises(DepthError, match="one channel"):
        read_depth(tmp_path / "f.npy")


def test_frames_from_dir_matches_depth_by_stem_and_reports_missing_depth(tmp_path) -> None:
    (tmp_path / "rgb").mkdir()
    (tmp_path / "depth").mkdir()
    for name in ("a", "b"):
        _png(tmp_path / "rgb" / f"{name}.png", np.zeros((16, 16, 3), np.uint8))
    _png(tmp_path / "depth" / "a.png", np.full((16, 16), 1000, np.uint16))
    with pytest.raises(DepthError, match="no depth image for b.png"):
        list(frames_from_dir(tmp_path / "rgb", tmp_path / "depth"))
    _png(tmp_path / "depth" / "b.png", np.full((8, 16), 1000, np.uint16))
    with pytest.raises(DepthError, match="depth is 16x8"):
        list(frames_from_dir(tmp_path / "rgb", tmp_path / "depth"))
    frames = list(frames_from_dir(tmp_path / "rgb"))
    assert [f.source for f in frames] == ["a.png", "b.png"] and frames[0].depth is None
    (tmp_path / "empty").mkdir()
    with pytest.raises(FrameError, match="holds no image files"):
        list(frames_from_dir(tmp_path / "empty"))


def test_video_frames_decode_and_non_videos_are_errors(tmp_path) -> None:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    for i in range(5):
        writer.write(np.full((48, 64, 3), i * 40, np.uint8))
    writer.release()
    frames = list(frames_from_video(path))
    assert len(frames) == 5 and frames[0].rgb.shape == (48, 64, 3)
    (tmp_path / "notes.avi").write_text("not a video")
    with pytest.raises(FrameError):
        list(frames_from_video(tmp_path / "notes.avi"))


def test_intrinsics_from_a_ros_k_matrix_and_files(tmp_path) -> None:
    k = [525.0, 0.0, 319.5, 0.0, 526.0, 239.5, 0.0, 0.0, 1.0]
    cam = CameraIntrinsics.from_k(k, 640, 480)
    assert (cam.fx, cam.fy, cam.cx, cam.cy) == (525.0, 526.0, 319.5, 239.5)
    assert CameraIntrinsics.from_camera_info({"k": k, "width": 640, "height": 480}) == cam
    (tmp_path / "ros.yaml").write_text("image_width: 640\nimage_height: 480\ncamera_matrix:\n  rows: 3\n  cols: 3\n"
                                       f"  data: {k}\n")
    assert CameraIntrinsics.load(tmp_path / "ros.yaml") == cam
    with pytest.raises(IntrinsicsError, match="9 numbers"):
        CameraIntrinsics.from_k(k[:6], 640, 480)
    (tmp_path / "bad.yaml").write_text("fx: -1\nfy: 1\ncx: 0\ncy: 0\nwidth: 10\nheight: 10\n")
    with pytest.raises(IntrinsicsError, match="fx"):
        CameraIntrinsics.load(tmp_path / "bad.yaml")
    with pytest.raises(IntrinsicsError, match="is 64x48 but the camera info says 640x480"):
        cam.check(Frame(np.zeros((48, 64, 3), np.uint8)))
