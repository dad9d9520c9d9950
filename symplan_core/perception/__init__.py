"""Perception: camera frames + instruction -> a verified BDDL task (the paper's video-to-BDDL).

Public API (stable; ``docs/perception.md``)::

    from symplan_core.perception import (
        Frame, CameraIntrinsics, KeyFrameSelector, make_detector, perceive, PerceptionConfig,
        write_outputs,
    )

Needs the ``vision`` extra (OpenCV, numpy); importing without it raises an ``ImportError`` that
says so.
"""

from __future__ import annotations

try:
    import cv2  # noqa: F401
    import numpy  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(f"symplan_core.perception needs OpenCV and numpy: pip install 'symplan-core[vision]' ({exc})") \
        from exc

from symplan_core.perception.detection import Detection, Detector
from symplan_core.perception.detectors import DETECTOR_FORMS, make_detector
from symplan_core.perception.errors import (
    DepthError,
    DetectorSpecError,
    DetectorUnavailableError,
    FrameError,
    IntrinsicsError,
    NoDetectionsError,
    OutputError,
    PerceptionError,
)
from symplan_core.perception.fiducial import FiducialDetector, FiducialMap, MarkerEntry
from symplan_core.perception.frames import (
    CameraIntrinsics,
    Frame,
    frames_from_dir,
    frames_from_video,
    overhead_pose,
    read_depth,
    read_image,
)
from symplan_core.perception.keyframes import KeyFrameConfig, KeyFrameSelector
from symplan_core.perception.lifting import Box3D, LiftConfig
from symplan_core.perception.output import sidecar_path, write_outputs
from symplan_core.perception.pipeline import PerceptionConfig, PerceptionResult, perceive
from symplan_core.perception.relations import RelationConfig
from symplan_core.perception.verifier import Verdict

__all__ = [
    "DETECTOR_FORMS", "Box3D", "CameraIntrinsics", "DepthError", "Detection", "Detector", "DetectorSpecError",
    "DetectorUnavailableError", "FiducialDetector", "FiducialMap", "Frame", "FrameError", "IntrinsicsError",
    "KeyFrameConfig", "KeyFrameSelector", "LiftConfig", "MarkerEntry", "NoDetectionsError",
    "OutputError", "PerceptionConfig", "PerceptionError", "PerceptionResult", "RelationConfig",
    "Verdict", "frames_from_dir", "frames_from_video", "make_detector", "overhead_pose", "perceive", "read_depth",
    "read_image", "sidecar_path", "write_outputs",
]
