"""Image -> numpy conversion and the key-frame buffer (pure numpy, no DDS)."""

from __future__ import annotations

import numpy as np
import pytest
from symplan_ros.images import ImageError, ImageLike, image_to_numpy, numpy_to_image_fields
from symplan_ros.scene import KeyFrameBuffer


def test_rgb8_with_row_padding_drops_the_padding_bytes() -> None:
    pixels = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3)
    padded = np.zeros((2, 12), np.uint8)  # step 12 > 3 px * 3 channels
    padded[:, :9] = pixels.reshape(2, 9)
    msg = ImageLike(height=2, width=3, encoding="rgb8", is_bigendian=0, step=12, data=padded.tobytes())
    np.testing.assert_array_equal(image_to_numpy(msg), pixels)


@pytest.mark.parametrize("bigendian", [0, 1])
def test_mono16_honours_is_bigendian(bigendian: int) -> None:
    depth = np.array([[1, 256], [4660, 65535]], dtype=">u2" if bigendian else "<u2")
    msg = ImageLike(2, 2, "16UC1", bigendian, 4, depth.tobytes())
    out = image_to_numpy(msg)
    assert out.dtype.byteorder in ("=", "|", "<" if np.little_endian else ">")
    np.testing.assert_array_equal(out, [[1, 256], [4660, 65535]])


def test_round_trip_through_image_fields() -> None:
    img = np.random.default_rng(0).integers(0, 255, (4, 5, 3), dtype=np.uint8)
    fields = numpy_to_image_fields(img, "bgr8")
    np.testing.assert_array_equal(image_to_numpy(ImageLike(**fields)), img)


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        (dict(height=2, width=3, encoding="rgb8", is_bigendian=0, step=8, data=b"\0" * 16), "bad_step"),
        (dict(height=2, width=3, encoding="yuv422_odd", is_bigendian=0, step=9, data=b"\0" * 18),
         "unsupported_encoding"),
        (dict(height=2, width=3, encoding="rgb8", is_bigendian=0, step=9, data=b"\0" * 10), "short_data"),
        (dict(height=0, width=3, encoding="rgb8", is_bigendian=0, step=9, data=b""), "empty_image"),
    ],
)
def test_invalid_images_raise_a_typed_error(kwargs: dict, reason: str) -> None:
    with pytest.raises(ImageError) as err:
        image_to_numpy(ImageLike(**kwargs))
    assert err.value.reason == reason


def test_keyframe_buffer_keeps_changed_frames_only_and_stays_bounded() -> None:
    buf = KeyFrameBuffer(capacity=3, threshold=0.05)
    dark = np.zeros((48, 64, 3), np.uint8)
    assert buf.offer(dark, 0.0) is True  # first frame is always a key frame
    assert buf.offer(dark.copy(), 0.1) is False  # identical: not a key frame
    for i in range(5):
        frame = np.full((48, 64, 3), 40 * (i + 1), np.uint8)
        assert buf.offer(frame, 1.0 + i) is True
    frames = buf.frames()
    assert len(frames) == 3
    assert [f.stamp_s for f in frames] == [3.0, 4.0, 5.0]  # oldest dropped first
