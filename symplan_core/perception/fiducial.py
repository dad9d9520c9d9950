"""Fiducial detection: OpenCV ArUco/AprilTag markers and a YAML map marker id -> synset or room.

Map file::

    dictionary: DICT_4X4_250        # any cv2.aruco predefined dictionary (AprilTag ones too)
    markers:
      0: car.n.01                   # short form: a synset
      1: {synset: floor.n.01, room: garage}
      2: {room: living_room}        # a room marker: marks the floor region of a room

Many ids may map to one synset (several instances of a kind). DICT_4X4_250 (250 ids) covers
the biggest BEHAVIOR-1K scene (66 objects) plus its rooms with room to spare, and its 4 x 4 bit
cells stay readable at the smallest tag sizes of a 640 x 480 overview.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from typing_extensions import override

from symplan_core.perception.detection import Detection, Detector
from symplan_core.perception.errors import DetectorSpecError, DetectorUnavailableError
from symplan_core.perception.frames import Frame

DEFAULT_DICTIONARY = "DICT_4X4_250"


class MarkerEntry(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    synset: str | None = None
    room: str | None = None

    @model_validator(mode="after")
    def _names_something(self) -> MarkerEntry:
        if not self.synset and not self.room:
            raise ValueError("a marker entry needs a synset, a room or both")
        return self


class FiducialMap(BaseModel):
    """Marker dictionary and id -> entry; ``FiducialMap.load(path)`` reads the YAML above."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    dictionary: str = DEFAULT_DICTIONARY
    markers: dict[int, MarkerEntry] = Field(default_factory=dict)

    @field_validator("markers", mode="before")
    @classmethod
    def _short_form(cls, value):
        if isinstance(value, dict):
            return {k: ({"synset": v} if isinstance(v, str) else v) for k, v in value.items()}
        return value

    @field_validator("dictionary")
    @classmethod
    def _known_dictionary(cls, value: str) -> str:
        if not isinstance(getattr(cv2.aruco, value, None), int) or not value.startswith("DICT_"):
            raise ValueError(f"unknown marker dictionary {value!r} (e.g. {DEFAULT_DICTIONARY}, DICT_APRILTAG_36h11)")
        return value

    @classmethod
    def load(cls, path: str | Path) -> FiducialMap:
        path = Path(path)
        try:
            data = yaml.safe_load(path.read_text())
        except FileNotFoundError:
            raise DetectorUnavailableError(f"no such fiducial map: {path}") from None
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
            raise DetectorSpecError(f"cannot read fiducial map {path}: {exc}") from None
        try:
            return cls.model_validate(data if data is not None else {})
        except ValidationError as exc:
            err = exc.errors()[0]
            raise DetectorSpecError(f"{path}: {'.'.join(map(str, err['loc']))}: {err['msg']}") from None

    def dump(self, path: str | Path) -> None:
        markers = {i: (e.synset if e.synset and not e.room else e.model_dump(exclude_none=True))
                   for i, e in sorted(self.markers.items())}
        Path(path).write_text(yaml.safe_dump({"dictionary": self.dictionary, "markers": markers}, sort_keys=False))

    def aruco_dictionary(self):
        return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.dictionary))


class FiducialDetector(Detector):
    """Finds markers with ``cv2.aruco.ArucoDetector``; labels them through the map.

    A marker missing from the map is still reported (``label="marker:ID"``, no synset) so the
    pipeline can say which ids it could not ground. A binary marker decodes or it does not, so
    the score is 1.0.
    """

    name = "fiducial"

    def __init__(self, fiducial_map: FiducialMap | None = None, threshold_windows: tuple[int, int] = (23, 23)) -> None:
        self.map = fiducial_map or FiducialMap()
        params = cv2.aruco.DetectorParameters()
        # OpenCV thresholds at window sizes 3, 13 and 23 by default; on the rendered scenes (tags of
        # 30-60 px) the single 23 px window found the same markers in a third of the time
        # (bench/bench_perception.py). Smaller tags want smaller windows: pass (3, 23).
        params.adaptiveThreshWinSizeMin, params.adaptiveThreshWinSizeMax = threshold_windows
        params.adaptiveThreshWinSizeStep = 10
        self._detector = cv2.aruco.ArucoDetector(self.map.aruco_dictionary(), params)

    @override  # a closed-set detector: the Detector interface's prompt is not read
    def detect(self, frame: Frame, prompt: Sequence[str] = ()) -> list[Detection]:
        corners, ids, _rejected = self._detector.detectMarkers(frame.gray())
        if ids is None:
            return []
        found = []
        for quad, marker in zip(corners, ids.ravel().tolist(), strict=True):
            entry = self.map.markers.get(int(marker))
            label = (entry.synset or f"room:{entry.room}") if entry else f"marker:{marker}"
            found.append(Detection(label=label, score=1.0, corners=np.asarray(quad, np.float32).reshape(4, 2),
                                   kind="marker", marker_id=int(marker),
                                   synset=entry.synset if entry else None, room=entry.room if entry else None))
        return found
