"""sensor_msgs/Image -> numpy without cv_bridge.

The conversion honours ``step`` (row padding), ``encoding`` and ``is_bigendian``; anything it
cannot interpret raises :class:`ImageError` (a typed error the node turns into a diagnostic)
rather than producing a silently wrong array.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

# encoding -> (numpy dtype without byte order, channels)
ENCODINGS: dict[str, tuple[str, int]] = {
    "rgb8": ("u1", 3), "bgr8": ("u1", 3), "rgba8": ("u1", 4), "bgra8": ("u1", 4),
    "rgb16": ("u2", 3), "bgr16": ("u2", 3), "rgba16": ("u2", 4), "bgra16": ("u2", 4),
    "mono8": ("u1", 1), "mono16": ("u2", 1),
    "8UC1": ("u1", 1), "8UC3": ("u1", 3), "8UC4": ("u1", 4),
    "16UC1": ("u2", 1), "16SC1": ("i2", 1), "32FC1": ("f4", 1), "32SC1": ("i4", 1),
    "64FC1": ("f8", 1),
}


class ImageError(ValueError):
    """An Image message that cannot be converted; ``reason`` is a short machine-readable tag."""

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


def image_to_numpy(msg: Any) -> np.ndarray:
    """Return an (H, W) or (H, W, C) array in native byte order; raise ImageError if invalid."""
    spec = ENCODINGS.get(msg.encoding)
    if spec is None:
        raise ImageError("unsupported_encoding", f"encoding {msg.encoding!r} is not one of {sorted(ENCODINGS)}")
    kind, channels = spec
    height, width, step = int(msg.height), int(msg.width), int(msg.step)
    if height <= 0 or width <= 0:
        raise ImageError("empty_image", f"size {width}x{height}")
    dtype = np.dtype(kind).newbyteorder(">" if msg.is_bigendian else "<")
    row_bytes = width * channels * dtype.itemsize
    if step < row_bytes:
        raise ImageError("bad_step", f"step {step} < width*channels*itemsize = {row_bytes}")
    data = msg.data
    # rclpy hands uint8[] fields over as array('B') or bytes; both support the buffer protocol.
    buf = np.frombuffer(memoryview(data).cast("B") if not isinstance(data, bytes) else data, np.uint8)
    if buf.size < step * height:
        raise ImageError("short_data", f"{buf.size} bytes < step*height = {step * height}")
    rows = buf[: step * height].reshape(height, step)[:, :row_bytes]
    pixels = np.ascontiguousarray(rows).view(dtype).astype(dtype.newbyteorder("="), copy=False)
    return pixels.reshape(height, width) if channels == 1 else pixels.reshape(height, width, channels)


def numpy_to_image_fields(array: np.ndarray, encoding: str) -> dict[str, Any]:
    """Fields for a sensor_msgs/Image carrying ``array`` (for tests and camera simulators)."""
    arr = np.ascontiguousarray(array)
    height, width = arr.shape[:2]
    return {
        "height": height, "width": width, "encoding": encoding,
        "is_bigendian": int(arr.dtype.byteorder == ">"),
        "step": arr.strides[0], "data": arr.tobytes(),
    }
