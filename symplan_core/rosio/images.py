"""ROS image messages -> numpy, without ROS or cv_bridge: one decoder for the node and bag replay.

Works on anything shaped like ``sensor_msgs/Image`` (``height, width, encoding, is_bigendian,
step, data``) or ``sensor_msgs/CompressedImage`` (``format, data``): rclpy messages, rosbags'
decoded messages and the plain :class:`ImageLike` of the tests. ``step`` (row padding),
``encoding`` and ``is_bigendian`` are honoured; anything that cannot be interpreted raises
:class:`ImageError` with a short machine-readable ``reason`` rather than a silently wrong array.

Colour comes out as H x W x 3 uint8 in RGB order; depth as H x W float32 metres (REP 118:
``16UC1``/``mono16`` depth is millimetres, ``32FC1`` is metres; 0 and NaN mean "no reading").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from symplan_core.errors import SymPlanError

# encoding -> (numpy dtype without byte order, channels)
ENCODINGS: dict[str, tuple[str, int]] = {
    "rgb8": ("u1", 3), "bgr8": ("u1", 3), "rgba8": ("u1", 4), "bgra8": ("u1", 4),
    "rgb16": ("u2", 3), "bgr16": ("u2", 3), "rgba16": ("u2", 4), "bgra16": ("u2", 4),
    "mono8": ("u1", 1), "mono16": ("u2", 1),
    "8UC1": ("u1", 1), "8UC3": ("u1", 3), "8UC4": ("u1", 4),
    "16UC1": ("u2", 1), "16SC1": ("i2", 1), "32FC1": ("f4", 1), "32SC1": ("i4", 1),
    "64FC1": ("f8", 1),
}
#: Encodings that carry colour (converted to RGB) and depth (converted to metres).
COLOR_ENCODINGS = ("rgb8", "bgr8", "rgba8", "bgra8", "mono8", "8UC3", "8UC1", "rgb16", "bgr16", "mono16")
DEPTH_ENCODINGS = {"16UC1": 0.001, "mono16": 0.001, "32FC1": 1.0, "64FC1": 1.0}
#: Largest image accepted (pixels): a bound on memory for a corrupt header claiming a huge size.
MAX_PIXELS = 8192 * 8192


class ImageError(SymPlanError, ValueError):
    """A message that cannot be converted; ``reason`` is a short machine-readable tag."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True)
class ImageLike:
    """The fields of sensor_msgs/Image that the conversion reads (lets tests skip ROS)."""

    height: int
    width: int
    encoding: str
    is_bigendian: int
    step: int
    data: Any


@dataclass(frozen=True)
class CompressedImageLike:
    """The fields of sensor_msgs/CompressedImage that the conversion reads."""

    format: str
    data: Any


def _as_bytes(data: Any) -> bytes | memoryview:
    # rclpy hands uint8[] over as array('B') or bytes, rosbags as a numpy array: all buffers.
    if isinstance(data, bytes):
        return data
    if isinstance(data, np.ndarray):
        return np.ascontiguousarray(data, dtype=np.uint8).data
    return memoryview(data).cast("B")


def image_to_numpy(msg: Any) -> np.ndarray:
    """Return an (H, W) or (H, W, C) array in native byte order; raise ImageError if invalid."""
    spec = ENCODINGS.get(msg.encoding)
    if spec is None:
        raise ImageError("unsupported_encoding", f"encoding {msg.encoding!r} is not one of {sorted(ENCODINGS)}")
    kind, channels = spec
    height, width, step = int(msg.height), int(msg.width), int(msg.step)
    if height <= 0 or width <= 0:
        raise ImageError("empty_image", f"size {width}x{height}")
    if height * width > MAX_PIXELS:
        raise ImageError("too_large", f"size {width}x{height} exceeds {MAX_PIXELS} pixels")
    dtype = np.dtype(kind).newbyteorder(">" if msg.is_bigendian else "<")
    row_bytes = width * channels * dtype.itemsize
    if step < row_bytes:
        raise ImageError("bad_step", f"step {step} < width*channels*itemsize = {row_bytes}")
    buf = np.frombuffer(_as_bytes(msg.data), np.uint8)
    if buf.size < step * height:
        raise ImageError("short_data", f"{buf.size} bytes < step*height = {step * height}")
    rows = buf[: step * height].reshape(height, step)[:, :row_bytes]
    pixels = np.ascontiguousarray(rows).view(dtype).astype(dtype.newbyteorder("="), copy=False)
    return pixels.reshape(height, width) if channels == 1 else pixels.reshape(height, width, channels)


def numpy_to_image_fields(array: np.ndarray, encoding: str) -> dict[str, Any]:
    """Fields for a sensor_msgs/Image carrying ``array`` (for tests, bag fixtures and camera simulators)."""
    arr = np.ascontiguousarray(array)
    height, width = arr.shape[:2]
    return {
        "height": height, "width": width, "encoding": encoding,
        "is_bigendian": int(arr.dtype.byteorder == ">"),
        "step": arr.strides[0], "data": arr.tobytes(),
    }


def is_compressed(msg: Any) -> bool:
    return hasattr(msg, "format") and not hasattr(msg, "encoding")


def _decode_compressed(msg: Any) -> tuple[np.ndarray, str]:
    """(decoded array, what it holds: "bgr"/"gray"/"depth16") of a CompressedImage."""
    import cv2

    fmt = str(msg.format).lower()
    data = bytes(_as_bytes(msg.data))
    if "compresseddepth" in fmt:
        # image_transport's compressedDepth: a 12-byte header (format, quantisation params), then PNG.
        if len(data) < 12:
            raise ImageError("short_data", f"compressedDepth message of {len(data)} bytes has no header")
        if not fmt.startswith("16uc1"):
            raise ImageError("unsupported_encoding", f"compressedDepth {msg.format!r}: only 16UC1 is supported")
        data = data[12:]
    if not (data.startswith(b"\x89PNG") or data.startswith(b"\xff\xd8")):
        raise ImageError("unsupported_encoding", f"compressed format {msg.format!r}: data is neither PNG nor JPEG")
    if data.startswith(b"\x89PNG") and b"IEND" not in data[-16:]:
        raise ImageError("truncated", "PNG data has no IEND chunk")
    if data.startswith(b"\xff\xd8") and not data.rstrip(b"\x00").endswith(b"\xff\xd9"):
        raise ImageError("truncated", "JPEG data has no end-of-image marker")
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_UNCHANGED)
    if image is None or image.size == 0:
        raise ImageError("undecodable", f"compressed {msg.format!r} data could not be decoded")
    if image.dtype == np.uint16 and image.ndim == 2:
        return image, "depth16"
    if image.ndim == 2:
        return image, "gray"
    return image, "bgr"


def decode_color(msg: Any) -> np.ndarray:
    """An Image or CompressedImage as H x W x 3 uint8 RGB."""
    import cv2

    if is_compressed(msg):
        image, kind = _decode_compressed(msg)
        if kind == "depth16":
            raise ImageError("unsupported_encoding", "a 16-bit compressed image is depth, not colour")
        if kind == "gray":
            return cv2.cvtColor(image, cv2.COLOR_GRAY2RGB)
        code = cv2.COLOR_BGRA2RGB if image.shape[2] == 4 else cv2.COLOR_BGR2RGB
        return cv2.cvtColor(image, code)
    if msg.encoding not in COLOR_ENCODINGS:
        raise ImageError("unsupported_encoding", f"encoding {msg.encoding!r} is not a colour encoding "
                                                 f"({', '.join(COLOR_ENCODINGS)})")
    array = image_to_numpy(msg)
    if array.dtype == np.uint16:
        array = (array >> 8).astype(np.uint8)
    if array.ndim == 2:
        return cv2.cvtColor(array, cv2.COLOR_GRAY2RGB)
    if msg.encoding.startswith("bgr"):
        return cv2.cvtColor(array, cv2.COLOR_BGRA2RGB if array.shape[2] == 4 else cv2.COLOR_BGR2RGB)
    return np.ascontiguousarray(array[..., :3])


def decode_depth(msg: Any) -> np.ndarray:
    """An Image (16UC1 mm / 32FC1 m) or 16-bit compressed depth as H x W float32 metres."""
    if is_compressed(msg):
        image, kind = _decode_compressed(msg)
        if kind != "depth16":
            raise ImageError("unsupported_encoding", f"compressed {msg.format!r} is not 16-bit depth")
        return image.astype(np.float32) * np.float32(0.001)
    scale = DEPTH_ENCODINGS.get(msg.encoding)
    if scale is None:
        raise ImageError("unsupported_encoding", f"encoding {msg.encoding!r} is not a depth encoding "
                                                 f"({', '.join(DEPTH_ENCODINGS)})")
    depth = image_to_numpy(msg).astype(np.float32)
    return depth * np.float32(scale) if scale != 1.0 else depth


def stamp_seconds(msg: Any) -> float:
    """``header.stamp`` of a message in seconds (0.0 when the message has no header)."""
    header = getattr(msg, "header", None)
    stamp = getattr(header, "stamp", None)
    if stamp is None:
        return 0.0
    return int(stamp.sec) + int(stamp.nanosec) * 1e-9
