"""Read RGB-D frames from an MRPT rawlog (``.rawlog``): the format of the real Kinect frame that
Debian's ``mrpt-common`` ships (``usr/share/mrpt/datasets/tests_rgbd.rawlog``).

A rawlog is a (usually gzipped) stream of MRPT-serialized objects. Each object is written as one
byte ``0x80 | len(class name)``, the class name, a version byte, the fields, and the end marker
``0x88``. Only what an RGB-D frame needs is read: ``mrpt::obs::CObservation3DRangeScan`` versions
9 and 10 (the depth image as uint16 in ``rangeUnits`` metres, the colour image as a
``mrpt::img::CImage`` stored raw or as JPEG, both ``mrpt::img::TCamera`` intrinsics and the
``mrpt::poses::CPose3D`` of the colour camera relative to the depth camera). Any other object, a
truncated stream, or a field that does not fit is a :class:`RawlogError` naming the byte offset.

**Registration.** A Kinect's depth and colour cameras are two cameras. Which pixels the stored depth
follows depends on the driver: OpenNI2 (the ``sensor_label`` of the Debian frame) registers depth to
the colour image in hardware. On the Debian frame the stored depth's discontinuities lie a median
1.9 px from the colour image's edges, against 2.9 px after re-projecting it with the stored depth
intrinsics and relative pose (which make the briefcase's depth slide ~20 px down its image). So the
default, ``registration="driver"``, keeps the depth as stored and pairs it with the colour camera's
intrinsics. ``registration="reproject"`` (:func:`register_depth`) re-projects every depth pixel
into the colour camera (back-project with the depth intrinsics, move by the stored pose, project
with the colour intrinsics, nearest reading per pixel) for drivers that do not register.
"""

from __future__ import annotations

import gzip
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import cv2
import numpy as np

from symplan_core.perception.errors import FrameError
from symplan_core.perception.frames import CameraIntrinsics, Frame

END_FLAG = 0x88
SCAN_3D = "mrpt::obs::CObservation3DRangeScan"
_SUPPORTED_SCAN_VERSIONS = (9, 10)
_FILETIME_UNIX_EPOCH = 116_444_736_000_000_000


class RawlogError(FrameError):
    """An MRPT rawlog that cannot be read: unreadable, truncated, an unsupported object or version."""


@dataclass(frozen=True)
class CameraModel:
    """An ``mrpt::img::TCamera``: pinhole intrinsics, distortion and size."""

    fx: float
    fy: float
    cx: float
    cy: float
    width: int
    height: int
    dist: tuple[float, ...]

    def intrinsics(self) -> CameraIntrinsics:
        return CameraIntrinsics(fx=self.fx, fy=self.fy, cx=self.cx, cy=self.cy, width=self.width,
                                height=self.height)


@dataclass(frozen=True, eq=False)
class RgbdObservation:
    """One ``CObservation3DRangeScan``: the colour image (RGB order), the raw depth (uint16 units of
    ``range_units`` metres, 0 = no reading) in the depth camera, both cameras, and the pose of the
    colour camera in the depth camera's body frame (4 x 4; MRPT's body axes: x forward, y left,
    z up)."""

    rgb: np.ndarray
    depth_raw: np.ndarray
    range_units: float
    depth_camera: CameraModel
    rgb_camera: CameraModel
    rgb_pose_in_depth: np.ndarray
    range_is_depth: bool
    timestamp: int
    sensor_label: str

    def depth_m(self) -> np.ndarray:
        """The stored depth in metres (float32, 0 = no reading), in the depth camera's pixels."""
        return self.depth_raw.astype(np.float32) * np.float32(self.range_units)


class _Reader:
    def __init__(self, data: bytes, source: str) -> None:
        self.data, self.pos, self.source = data, 0, source

    def fail(self, what: str) -> RawlogError:
        return RawlogError(f"{self.source}: {what} (at byte {self.pos} of {len(self.data)})")

    def take(self, n: int, what: str) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise self.fail(f"truncated while reading {what}")
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def unpack(self, fmt: str, what: str) -> tuple:
        return struct.unpack("<" + fmt, self.take(struct.calcsize("<" + fmt), what))

    def u8(self, what: str) -> int:
        return self.take(1, what)[0]

    def flag(self, what: str) -> bool:
        value = self.u8(what)
        if value not in (0, 1):
            raise self.fail(f"{what} should be a bool byte, got {value}")
        return bool(value)

    def string(self, what: str) -> str:
        (length,) = self.unpack("I", f"{what} length")
        return self.take(length, what).decode("utf-8", "replace")

    def object_header(self, expected: str | None = None) -> tuple[str, int]:
        head = self.u8("an object header")
        if not head & 0x80:
            raise self.fail(f"expected an MRPT object header byte (0x80 | name length), got {head:#x}")
        name = self.take(head & 0x7F, "a class name").decode("ascii", "replace")
        version = self.u8(f"the version of {name}")
        if expected is not None and name != expected:
            raise self.fail(f"expected a {expected}, found a {name}")
        return name, version

    def end(self, name: str) -> None:
        flag = self.u8(f"the end marker of {name}")
        if flag != END_FLAG:
            raise self.fail(f"{name} does not end with the 0x88 marker (got {flag:#x}): unsupported layout")


def _pose(r: _Reader) -> np.ndarray:
    _name, version = r.object_header("mrpt::poses::CPose3D")
    if version != 3:
        raise r.fail(f"CPose3D version {version} is not supported (3 is)")
    values = r.unpack("12d", "a CPose3D")
    r.end("CPose3D")
    pose = np.eye(4)
    pose[:3, 3] = values[:3]
    pose[:3, :3] = np.asarray(values[3:], dtype=np.float64).reshape(3, 3)
    return pose


def _camera(r: _Reader) -> CameraModel:
    _name, version = r.object_header("mrpt::img::TCamera")
    if version not in (4, 5, 6):
        raise r.fail(f"TCamera version {version} is not supported (4-6 are)")
    values = r.unpack("13d", "TCamera parameters")  # focal length (m), 8 distortion terms, fx fy cx cy
    nrows, ncols = r.unpack("II", "TCamera size")
    if version >= 5:
        r.string("the camera name")
    if version >= 6:
        r.u8("the distortion model")
    r.end("TCamera")
    fx, fy, cx, cy = values[9:13]
    if not (fx > 0 and fy > 0 and ncols > 0 and nrows > 0):
        raise r.fail(f"TCamera with fx={fx} fy={fy} size {ncols}x{nrows} is not a usable camera")
    return CameraModel(fx, fy, cx, cy, int(ncols), int(nrows), tuple(values[1:9]))


def _image(r: _Reader) -> np.ndarray:
    _name, version = r.object_header("mrpt::img::CImage")
    if not 7 <= version <= 9:
        raise r.fail(f"CImage version {version} is not supported (7-9 are)")
    if r.flag("CImage external-storage flag"):
        raise r.fail(f"the colour image is stored in an external file ({r.string('its name')!r}); "
                     "only images inside the rawlog are read")
    if not r.flag("CImage colour flag"):
        raise r.fail("the intensity image is grey-scale; a colour image is needed")
    width, height = r.unpack("ii", "CImage size")
    bgr: np.ndarray | None
    if width < 0 and height < 0:  # raw BGR rows
        w, h = -width, -height
        bgr = np.frombuffer(r.take(w * h * 3, f"a {w}x{h} BGR image"), np.uint8).reshape(h, w, 3)
    elif width > 0 and height > 0:  # JPEG
        (size,) = r.unpack("I", "the JPEG size")
        bgr = cv2.imdecode(np.frombuffer(r.take(size, "a JPEG image"), np.uint8), cv2.IMREAD_COLOR)
        if bgr is None or bgr.shape[:2] != (height, width):
            raise r.fail(f"the JPEG colour image does not decode to {width}x{height}")
    else:
        raise r.fail(f"CImage of size {width}x{height}")
    r.end("CImage")
    return np.ascontiguousarray(bgr[..., ::-1])


def _scan(r: _Reader, version: int) -> RgbdObservation:
    if version not in _SUPPORTED_SCAN_VERSIONS:
        raise r.fail(f"{SCAN_3D} version {version} is not supported ({_SUPPORTED_SCAN_VERSIONS} are)")
    r.unpack("f", "maxRange")
    _pose(r)  # the sensor pose on the robot: perception gets the camera pose from its config
    if r.flag("hasPoints3D"):
        (n,) = r.unpack("I", "the point count")
        r.take(n * (3 * 4 + 2 * 2), f"{n} 3-D points")  # x, y, z floats + u, v uint16 (version >= 8)
    if not r.flag("hasRangeImage"):
        raise r.fail("the observation has no range image (depth)")
    (units,) = r.unpack("f", "rangeUnits")
    rows, cols = r.unpack("II", "the range image size")
    if not (0 < rows <= 8192 and 0 < cols <= 8192) or not 0 < units < 1:
        raise r.fail(f"range image {cols}x{rows} with units {units} m is not plausible")
    depth = np.frombuffer(r.take(rows * cols * 2, f"a {cols}x{rows} range image"), "<u2").reshape(rows, cols)
    if not r.flag("hasIntensityImage"):
        raise r.fail("the observation has no intensity (colour) image")
    rgb = _image(r)
    if r.flag("hasConfidenceImage"):
        _image(r)
    depth_cam, rgb_cam = _camera(r), _camera(r)
    rel = _pose(r)
    r.unpack("f", "stdError")
    (stamp,) = r.unpack("Q", "the timestamp")
    label = r.string("the sensor label")
    r.flag("points3D external flag")
    r.string("points3D external file")
    if r.flag("range image external flag"):
        raise r.fail("the range image is stored in an external file; only depth inside the rawlog is read")
    r.string("range image external file")
    range_is_depth = r.flag("range_is_depth")
    r.u8("intensity channel")
    if r.flag("pixel-labels flag"):
        raise r.fail("pixel labels are not supported")
    if version >= 10:
        for _ in range(r.u8("the number of extra range layers")):
            r.string("a layer name")
            lc, lr = r.unpack("II", "a layer size")
            r.take(lc * lr * 2, "a range layer")
    r.end(SCAN_3D)
    if (depth_cam.width, depth_cam.height) != (cols, rows):
        raise r.fail(f"depth camera is {depth_cam.width}x{depth_cam.height} but the range image is {cols}x{rows}")
    if (rgb_cam.width, rgb_cam.height) != (rgb.shape[1], rgb.shape[0]):
        raise r.fail(f"colour camera is {rgb_cam.width}x{rgb_cam.height} but the image is "
                     f"{rgb.shape[1]}x{rgb.shape[0]}")
    return RgbdObservation(rgb, depth.copy(), float(units), depth_cam, rgb_cam, rel, range_is_depth, int(stamp), label)


def _load(path: Path) -> bytes:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise RawlogError(f"cannot read rawlog {path}: {exc.strerror or exc}") from None
    if raw[:2] == b"\x1f\x8b":
        try:
            return gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise RawlogError(f"{path}: corrupt or truncated gzip stream ({exc})") from None
    return raw


def read_rawlog(path: str | Path, limit: int | None = None) -> list[RgbdObservation]:
    """Every RGB-D observation of a rawlog (at most ``limit``), in file order.

    Raises :class:`RawlogError` for an unreadable file, a truncated stream, an object other than
    ``CObservation3DRangeScan`` or an unsupported version, or a file with no observation.
    """
    path = Path(path)
    r = _Reader(_load(path), str(path))
    found: list[RgbdObservation] = []
    while r.pos < len(r.data) and (limit is None or len(found) < limit):
        name, version = r.object_header()
        if name != SCAN_3D:
            raise r.fail(f"unsupported rawlog object {name} (only {SCAN_3D} is read)")
        found.append(_scan(r, version))
    if not found:
        raise RawlogError(f"{path}: no RGB-D observation in the rawlog")
    return found


# MRPT's body frame (x forward, y left, z up) from an optical camera frame (x right, y down, z forward).
_BODY_FROM_OPTICAL = np.array([[0.0, 0.0, 1.0], [-1.0, 0.0, 0.0], [0.0, -1.0, 0.0]])


def register_depth(obs: RgbdObservation) -> np.ndarray:
    """Depth in metres re-projected into the colour camera's pixels (float32, 0 = no reading).

    Each depth pixel is back-projected with the depth intrinsics (in MRPT a depth camera's range
    image holds z-depth when ``range_is_depth``; ranges are converted), moved into the colour
    camera with the stored relative pose and projected with the colour intrinsics; where several
    land on one pixel the nearest wins. Lens distortion is ignored (its terms are below 0.06 here).
    """
    dc, rc = obs.depth_camera, obs.rgb_camera
    v, u = np.nonzero(obs.depth_raw)
    z = obs.depth_raw[v, u].astype(np.float64) * obs.range_units
    x, y = (u - dc.cx) / dc.fx, (v - dc.cy) / dc.fy
    if not obs.range_is_depth:  # a range along the ray: scale to z-depth
        z = z / np.sqrt(1.0 + x * x + y * y)
    points = np.stack([x * z, y * z, z])  # optical frame of the depth camera
    body = _BODY_FROM_OPTICAL @ points
    rot, trans = obs.rgb_pose_in_depth[:3, :3], obs.rgb_pose_in_depth[:3, 3:]
    cam = rot.T @ (body - trans)  # colour camera optical frame (the pose maps it into the body)
    front = cam[2] > 1e-3
    cam = cam[:, front]
    pu = np.round(rc.fx * cam[0] / cam[2] + rc.cx).astype(np.int64)
    pv = np.round(rc.fy * cam[1] / cam[2] + rc.cy).astype(np.int64)
    inside = (pu >= 0) & (pu < rc.width) & (pv >= 0) & (pv < rc.height)
    pu, pv, depth = pu[inside], pv[inside], cam[2, inside].astype(np.float32)
    flat = np.full(rc.height * rc.width, np.inf, np.float32)
    np.minimum.at(flat, pv * rc.width + pu, depth)
    flat[~np.isfinite(flat)] = 0.0
    out = flat.reshape(rc.height, rc.width)
    # The colour camera has the wider view here: fill the one-pixel gaps the forward mapping leaves
    # (a 3 x 3 closing on valid readings only), never across depth edges wider than 5 cm.
    filled = cv2.morphologyEx(np.where(out > 0, out, 0).astype(np.float32), cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    gap = (out == 0) & (filled > 0)
    lo = cv2.erode(np.where(out > 0, out, np.float32(1e6)), np.ones((3, 3), np.uint8))
    out[gap & (filled - lo < 0.05)] = filled[gap & (filled - lo < 0.05)]
    return out


def unix_seconds(stamp: int) -> float:
    """An MRPT timestamp (100 ns ticks since 1601-01-01, as Windows FILETIME) in Unix seconds."""
    return (stamp - _FILETIME_UNIX_EPOCH) / 1e7


Registration = Literal["driver", "reproject"]


def frames_from_rawlog(path: str | Path, registration: Registration = "driver",
                       limit: int | None = None) -> tuple[list[Frame], CameraIntrinsics]:
    """The rawlog's RGB-D observations as :class:`Frame` objects (depth in metres, no pose) and the
    colour camera's intrinsics, which both images then follow (see the module docstring)."""
    if registration not in ("driver", "reproject"):
        raise RawlogError(f"registration must be 'driver' or 'reproject', got {registration!r}")
    observations = read_rawlog(path, limit)
    frames = []
    for k, obs in enumerate(observations):
        depth = register_depth(obs) if registration == "reproject" else obs.depth_m()
        rgb = obs.rgb
        if depth.shape != rgb.shape[:2]:
            raise RawlogError(f"{path}: observation {k}: depth {depth.shape[1]}x{depth.shape[0]} and colour "
                              f"{rgb.shape[1]}x{rgb.shape[0]} differ; use registration='reproject'")
        frames.append(Frame(rgb, depth, stamp=unix_seconds(obs.timestamp), source=f"{Path(path).name}#{k}"))
    return frames, observations[0].rgb_camera.intrinsics()
