"""Camera frames and intrinsics, and reading them from files.

A :class:`Frame` is an RGB image (H x W x 3, uint8, RGB order), optionally depth (H x W float32,
metres; 0 or NaN = no reading), a stamp in seconds and optionally the camera pose (4 x 4,
camera -> world, world z up, camera looking along its +z with +y down the image: the OpenCV
convention). :class:`CameraIntrinsics` is the pinhole model a ROS ``CameraInfo`` carries
(``k`` = fx 0 cx / 0 fy cy / 0 0 1, width, height); it is built from those numbers without
importing ROS.

File readers check what they read: an unknown encoding, a truncated PNG/JPEG, a depth image with
no metric unit or a size that does not match its colour frame is a typed error, never a
half-decoded image.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from symplan_core.perception.errors import DepthError, FrameError, IntrinsicsError

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".ppm", ".pgm", ".tif", ".tiff", ".webp")
DEPTH_SUFFIXES = (".png", ".npy", ".tif", ".tiff")

#: Pose of an overhead camera looking straight down (world z up, image up = world +y). Used
#: when frames carry no pose: heights are then relative to the camera, which is all relations need.
OVERHEAD_ROTATION = np.diag([1.0, -1.0, -1.0])


def overhead_pose(x: float = 0.0, y: float = 0.0, height: float = 0.0) -> np.ndarray:
    """Camera -> world transform of a camera at ``(x, y, height)`` looking straight down."""
    pose = np.eye(4)
    pose[:3, :3] = OVERHEAD_ROTATION
    pose[:3, 3] = (x, y, height)
    return pose


@dataclass(frozen=True, eq=False)
class Frame:
    """One camera frame. Arrays are validated on construction (:class:`FrameError`, :class:`DepthError`)."""

    rgb: np.ndarray
    depth: np.ndarray | None = None
    stamp: float = 0.0
    pose: np.ndarray | None = None
    source: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        rgb = self.rgb
        if not isinstance(rgb, np.ndarray) or rgb.dtype != np.uint8 or rgb.ndim != 3 or rgb.shape[2] != 3:
            shape = getattr(rgb, "shape", None)
            dtype = getattr(rgb, "dtype", type(rgb).__name__)
            raise FrameError(f"{self.label}: RGB must be an H x W x 3 uint8 array, got {dtype} {shape}")
        if rgb.shape[0] < 8 or rgb.shape[1] < 8:
            raise FrameError(f"{self.label}: image {rgb.shape[1]}x{rgb.shape[0]} is too small")
        if self.depth is not None:
            depth = self.depth
            if not isinstance(depth, np.ndarray) or depth.dtype != np.float32 or depth.ndim != 2:
                raise DepthError(f"{self.label}: depth must be an H x W float32 array in metres, got "
                                 f"{getattr(depth, 'dtype', type(depth).__name__)} {getattr(depth, 'shape', None)}")
            if depth.shape != rgb.shape[:2]:
                raise DepthError(f"{self.label}: depth is {depth.shape[1]}x{depth.shape[0]} but the image is "
                                 f"{rgb.shape[1]}x{rgb.shape[0]}")
        if self.pose is not None:
            pose = np.asarray(self.pose, dtype=np.float64)
            if pose.shape != (4, 4) or not np.all(np.isfinite(pose)):
                raise FrameError(f"{self.label}: pose must be a finite 4 x 4 camera -> world matrix")
            object.__setattr__(self, "pose", pose)

    @property
    def label(self) -> str:
        return self.source or f"frame@{self.stamp:.3f}s"

    @property
    def width(self) -> int:
        return int(self.rgb.shape[1])

    @property
    def height(self) -> int:
        return int(self.rgb.shape[0])

    def gray(self) -> np.ndarray:
        return cv2.cvtColor(self.rgb, cv2.COLOR_RGB2GRAY)


class CameraIntrinsics(BaseModel):
    """Pinhole intrinsics (pixels). ``from_k`` takes a ROS ``CameraInfo.k`` (row-major 3 x 3)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    fx: float = Field(gt=0)
    fy: float = Field(gt=0)
    cx: float
    cy: float
    width: int = Field(gt=0)
    height: int = Field(gt=0)

    @classmethod
    def from_k(cls, k: Sequence[float], width: int, height: int) -> CameraIntrinsics:
        values = [float(v) for v in k]
        if len(values) != 9:
            raise IntrinsicsError(f"a K matrix has 9 numbers, got {len(values)}")
        try:
            return cls(fx=values[0], fy=values[4], cx=values[2], cy=values[5], width=width, height=height)
        except ValidationError as exc:
            raise IntrinsicsError(f"bad intrinsics: {_first_error(exc)}") from None

    @classmethod
    def from_camera_info(cls, info: Any) -> CameraIntrinsics:
        """Any object with ``k``, ``width`` and ``height`` (a ``sensor_msgs/CameraInfo``, or a dict)."""
        get = info.get if isinstance(info, dict) else lambda name: getattr(info, name, None)
        k, width, height = get("k"), get("width"), get("height")
        if k is None or width is None or height is None:
            raise IntrinsicsError("camera info needs k, width and height")
        return cls.from_k(list(k), int(width), int(height))

    @classmethod
    def load(cls, path: str | Path) -> CameraIntrinsics:
        """A YAML/JSON file: ``{fx, fy, cx, cy, width, height}``, ``{k, width, height}`` or the
        ROS camera-calibration layout (``image_width``, ``image_height``, ``camera_matrix.data``)."""
        path = Path(path)
        try:
            data = yaml.safe_load(path.read_text())
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
            raise IntrinsicsError(f"cannot read camera info {path}: {exc}") from None
        if not isinstance(data, dict):
            raise IntrinsicsError(f"{path}: camera info must be a mapping")
        if "camera_matrix" in data:
            matrix = data["camera_matrix"]
            k = matrix.get("data") if isinstance(matrix, dict) else None
            return cls.from_k(k or [], int(data.get("image_width", 0)), int(data.get("image_height", 0)))
        if "k" in data or "K" in data:
            return cls.from_k(data.get("k") or data.get("K") or [], int(data.get("width", 0)), int(data.get("height", 0)))
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise IntrinsicsError(f"{path}: {_first_error(exc)}") from None

    def matrix(self) -> np.ndarray:
        return np.array([[self.fx, 0.0, self.cx], [0.0, self.fy, self.cy], [0.0, 0.0, 1.0]])

    def check(self, frame: Frame) -> None:
        if (frame.width, frame.height) != (self.width, self.height):
            raise IntrinsicsError(f"{frame.label} is {frame.width}x{frame.height} but the camera info says "
                                  f"{self.width}x{self.height}")

    def to_json(self) -> dict:
        return self.model_dump()


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    return f"{'.'.join(map(str, err['loc']))}: {err['msg']}"


# -- files ------------------------------------------------------------------------------

_MAGIC = ((b"\x89PNG\r\n\x1a\n", "png"), (b"\xff\xd8\xff", "jpeg"), (b"BM", "bmp"), (b"II*\x00", "tiff"),
          (b"MM\x00*", "tiff"), (b"P5", "pnm"), (b"P6", "pnm"))


def image_encoding(data: bytes) -> str | None:
    """The encoding named by the first bytes, or None for anything else."""
    for magic, name in _MAGIC:
        if data.startswith(magic):
            return name
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return None


def _decode(path: Path) -> np.ndarray:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise FrameError(f"cannot read {path}: {exc.strerror or exc}") from None
    encoding = image_encoding(data)
    if encoding is None:
        raise FrameError(f"{path}: unknown image encoding (expected PNG, JPEG, BMP, TIFF, PNM or WebP)")
    # OpenCV decodes a cut-off PNG/JPEG into a partly grey image with only a warning: check the end marker.
    if encoding == "png" and b"IEND" not in data[-16:]:
        raise FrameError(f"{path}: truncated PNG (no IEND chunk)")
    if encoding == "jpeg" and not data.rstrip(b"\x00").endswith(b"\xff\xd9"):
        raise FrameError(f"{path}: truncated JPEG (no end-of-image marker)")
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_UNCHANGED)
    if image is None or image.size == 0:
        raise FrameError(f"{path}: {encoding} data could not be decoded")
    return image


def read_image(path: str | Path) -> np.ndarray:
    """An image file as H x W x 3 uint8 RGB (grey and alpha images are converted)."""
    path = Path(path)
    image = _decode(path)
    if image.dtype == np.uint16:
        image = (image >> 8).astype(np.uint8)
    elif image.dtype != np.uint8:
        raise FrameError(f"{path}: unsupported colour sample type {image.dtype}")
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2RGB)
    if image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2RGB)
    if image.shape[2] == 3:
        return cv2.cvtColor(image, cv2.COLOR_BGR2RGB)
    raise FrameError(f"{path}: unsupported channel count {image.shape[2]}")


def read_depth(path: str | Path, scale: float = 0.001) -> np.ndarray:
    """A depth file as H x W float32 metres: 16-bit PNG/TIFF times ``scale`` (default: millimetres),
    float TIFF or ``.npy`` (float in metres, or uint16 times ``scale``)."""
    path = Path(path)
    if path.suffix.lower() == ".npy":
        try:
            depth = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise DepthError(f"cannot read depth {path}: {exc}") from None
    else:
        try:
            depth = _decode(path)
        except FrameError as exc:
            raise DepthError(str(exc)) from None
    if depth.ndim != 2:
        raise DepthError(f"{path}: depth must have one channel, got shape {depth.shape}")
    if depth.dtype == np.uint16:
        return depth.astype(np.float32) * np.float32(scale)
    if depth.dtype in (np.float32, np.float64):
        return depth.astype(np.float32)
    raise DepthError(f"{path}: unknown depth encoding {depth.dtype} (expected uint16 with a scale, or float metres)")


def _depth_files(depth_dir: str | Path | None) -> dict[str, Path]:
    """Depth files of a directory by file stem (empty for no directory)."""
    if depth_dir is None:
        return {}
    depth_dir = Path(depth_dir)
    if not depth_dir.is_dir():
        raise DepthError(f"no such depth directory: {depth_dir}")
    return {p.stem: p for p in sorted(depth_dir.iterdir()) if p.suffix.lower() in DEPTH_SUFFIXES}


def frames_from_dir(images: str | Path, depth_dir: str | Path | None = None, depth_scale: float = 0.001,
                    fps: float = 1.0) -> Iterator[Frame]:
    """Frames from the image files of a directory in name order, with depth matched by file stem."""
    images = Path(images)
    if not images.is_dir():
        raise FrameError(f"no such image directory: {images}")
    files = sorted(p for p in images.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    if not files:
        raise FrameError(f"{images} holds no image files ({', '.join(IMAGE_SUFFIXES)})")
    depth_files = _depth_files(depth_dir)
    if depth_dir is not None:
        missing = [p.name for p in files if p.stem not in depth_files]
        if missing:
            raise DepthError(f"no depth image for {', '.join(missing[:5])} in {depth_dir} (matched by file stem)")
    for index, path in enumerate(files):
        depth = read_depth(depth_files[path.stem], depth_scale) if depth_files else None
        yield Frame(read_image(path), depth, stamp=index / fps, source=path.name)


def frames_from_video(path: str | Path, depth_dir: str | Path | None = None,
                      depth_scale: float = 0.001) -> Iterator[Frame]:
    """Decoded video frames (depth, if given, as files named by frame number: 000000.png ...)."""
    path = Path(path)
    if not path.is_file():
        raise FrameError(f"no such video file: {path}")
    capture = cv2.VideoCapture(str(path))
    if not capture.isOpened():
        raise FrameError(f"{path}: not a video OpenCV can decode")
    depth_files = {int(stem): p for stem, p in _depth_files(depth_dir).items() if stem.isdigit()}
    try:
        index = 0
        while True:
            ok, bgr = capture.read()
            if not ok:
                break
            depth = None
            if depth_dir is not None:
                if index not in depth_files:
                    raise DepthError(f"{path}: no depth file for frame {index} in {depth_dir}")
                depth = read_depth(depth_files[index], depth_scale)
            stamp = capture.get(cv2.CAP_PROP_POS_MSEC) / 1000.0
            yield Frame(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB), depth, stamp=stamp, source=f"{path.name}#{index}")
            index += 1
        if index == 0:
            raise FrameError(f"{path}: the video has no decodable frames")
    finally:
        capture.release()
