"""ROS image messages -> numpy: raw encodings, row padding, byte order, compressed colour and depth."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from symplan_core.rosio.images import (
    CompressedImageLike,
    ImageError,
    ImageLike,
    decode_color,
    decode_depth,
    image_to_numpy,
    numpy_to_image_fields,
)


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


def test_numpy_array_data_as_rosbags_delivers_it_decodes_like_bytes() -> None:
    img = np.random.default_rng(1).integers(0, 255, (3, 4, 3), dtype=np.uint8)
    fields = numpy_to_image_fields(img, "rgb8")
    fields["data"] = np.frombuffer(fields["data"], np.uint8)
    np.testing.assert_array_equal(decode_color(ImageLike(**fields)), img)


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        (dict(height=2, width=3, encoding="rgb8", is_bigendian=0, step=8, data=b"\0" * 16), "bad_step"),
        (dict(height=2, width=3, encoding="yuv422_odd", is_bigendian=0, step=9, data=b"\0" * 18),
         "unsupported_encoding"),
        (dict(height=2, width=3, encoding="rgb8", is_bigendian=0, step=9, data=b"\0" * 10), "short_data"),
        (dict(height=0, width=3, encoding="rgb8", is_bigendian=0, step=9, data=b""), "empty_image"),
        (dict(height=100_000, width=100_000, encoding="mono8", is_bigendian=0, step=100_000, data=b""), "too_large"),
    ],
)
def test_invalid_images_raise_a_typed_error(kwargs: dict, reason: str) -> None:
    with pytest.raises(ImageError) as err:
        image_to_numpy(ImageLike(**kwargs))
    assert err.value.reason == reason


def test_bgr8_and_mono8_come_out_as_rgb() -> None:
    rgb = np.zeros((2, 2, 3), np.uint8)
    rgb[..., 0] = 200  # red
    bgr = rgb[..., ::-1].copy()
    assert decode_color(ImageLike(**numpy_to_image_fields(bgr, "bgr8")))[0, 0].tolist() == [200, 0, 0]
    grey = np.full((2, 2), 77, np.uint8)
    assert decode_color(ImageLike(**numpy_to_image_fields(grey, "mono8")))[1, 1].tolist() == [77, 77, 77]


def test_depth_encodings_come_out_in_metres() -> None:
    mm = np.array([[1500, 0]], np.uint16)
    np.testing.assert_allclose(decode_depth(ImageLike(**numpy_to_image_fields(mm, "16UC1"))), [[1.5, 0.0]])
    metres = np.array([[0.25, np.nan]], np.float32)
    out = decode_depth(ImageLike(**numpy_to_image_fields(metres, "32FC1")))
    assert out.dtype == np.float32 and out[0, 0] == pytest.approx(0.25) and np.isnan(out[0, 1])


def test_a_colour_encoding_is_not_accepted_as_depth_and_vice_versa() -> None:
    with pytest.raises(ImageError, match="not a depth encoding"):
        decode_depth(ImageLike(**numpy_to_image_fields(np.zeros((2, 2, 3), np.uint8), "rgb8")))
    with pytest.raises(ImageError, match="not a colour encoding"):
        decode_color(ImageLike(**numpy_to_image_fields(np.zeros((2, 2), np.float32), "32FC1")))


def _compressed(image: np.ndarray, ext: str, fmt: str) -> CompressedImageLike:
    ok, data = cv2.imencode(ext, image)
    assert ok
    return CompressedImageLike(fmt, data.tobytes())


def test_compressed_png_colour_and_16_bit_depth_decode() -> None:
    rgb = np.random.default_rng(2).integers(0, 255, (6, 8, 3), dtype=np.uint8)
    msg = _compressed(cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), ".png", "rgb8; png compressed bgr8")
    np.testing.assert_array_equal(decode_color(msg), rgb)
    depth_mm = np.array([[1000, 2500]], np.uint16)
    np.testing.assert_allclose(decode_depth(_compressed(depth_mm, ".png", "16UC1; png")), [[1.0, 2.5]])


def test_compressed_depth_with_the_image_transport_header_decodes() -> None:
    depth_mm = np.array([[1234, 0]], np.uint16)
    ok, png = cv2.imencode(".png", depth_mm)
    msg = CompressedImageLike("16UC1; compressedDepth png", b"\0" * 12 + png.tobytes())
    np.testing.assert_allclose(decode_depth(msg), [[1.234, 0.0]])


@pytest.mark.parametrize(("data", "reason"), [
    (b"GIF89a-not-supported", "unsupported_encoding"),
    (b"\xff\xd8\xff\xe0 truncated jpeg", "truncated"),
])
def test_bad_compressed_data_raises_a_typed_error(data: bytes, reason: str) -> None:
    with pytest.raises(ImageError) as err:
        decode_color(CompressedImageLike("jpeg", data))
    assert err.value.reason == reason


def test_a_cut_png_is_rejected_not_half_decoded() -> None:
    rgb = np.zeros((16, 16, 3), np.uint8)
    ok, png = cv2.imencode(".png", rgb)
    with pytest.raises(ImageError) as err:
        decode_color(CompressedImageLike("png", png.tobytes()[:-20]))
    assert err.value.reason == "truncated"
