"""Detection: one ``Detector`` interface, chosen by a spec string like the planner backends.

Spec forms (``make_detector``):

* ``fiducial`` or ``fiducial:MAP.yaml`` - OpenCV ArUco/AprilTag markers; the map names the
  dictionary and maps marker ids to BEHAVIOR synsets (or to rooms). No weights.
* ``grounding-dino:PATH[?threshold=0.3&text_threshold=0.25]`` - open-vocabulary detection through
  ``transformers`` (``AutoModelForZeroShotObjectDetection``) from a local model directory.
* ``yolo-world:PATH[?threshold=0.25]`` - ``ultralytics`` YOLO-World weights (the ``vision-gpu``
  extra), imported only when chosen.

Nothing is downloaded: a path that is not a local directory/file is an error.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import parse_qsl

import numpy as np

from symplan_core.perception.errors import DetectorSpecError
from symplan_core.perception.frames import Frame

DETECTOR_FORMS = ("fiducial[:MAP.yaml]", "grounding-dino:PATH", "yolo-world:PATH")


@dataclass(frozen=True, eq=False)
class Detection:
    """One detection in one frame.

    ``corners`` is the outline in pixels (a marker's four corners, or a box's). ``synset`` is set
    when the detector knows it (a fiducial map); ``room`` marks a room marker; ``label`` is the
    detector's own word for it (the prompt phrase, or ``marker:ID``).
    """

    label: str
    score: float
    corners: np.ndarray
    kind: Literal["marker", "box"] = "box"
    marker_id: int | None = None
    synset: str | None = None
    room: str | None = None
    frame: int = 0

    @property
    def box(self) -> tuple[float, float, float, float]:
        xs, ys = self.corners[:, 0], self.corners[:, 1]
        return float(xs.min()), float(ys.min()), float(xs.max()), float(ys.max())

    @property
    def center(self) -> tuple[float, float]:
        return float(self.corners[:, 0].mean()), float(self.corners[:, 1].mean())

    def in_frame(self, index: int) -> Detection:
        return Detection(self.label, self.score, self.corners, self.kind, self.marker_id, self.synset,
                         self.room, index)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"frame": self.frame, "label": self.label, "score": round(self.score, 4),
                               "box": [round(v, 1) for v in self.box]}
        if self.marker_id is not None:
            out["marker_id"] = self.marker_id
        if self.synset:
            out["synset"] = self.synset
        if self.room:
            out["room"] = self.room
        return out


class Detector(ABC):
    """Finds objects in a frame. ``prompt`` is the object prior (phrases) for open-vocabulary
    detectors; detectors with a fixed vocabulary ignore it."""

    name: str = "detector"

    @abstractmethod
    def detect(self, frame: Frame, prompt: Sequence[str] = ()) -> list[Detection]: ...

    @property
    def open_vocabulary(self) -> bool:
        return False

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release model memory; the default holds nothing."""


def split_spec(spec: str) -> tuple[str, str, dict[str, str]]:
    """``kind:target?k=v`` -> (kind, target, options)."""
    text = spec.strip()
    if not text:
        raise DetectorSpecError(f"empty detector spec (expected one of: {', '.join(DETECTOR_FORMS)})")
    head, _, query = text.partition("?")
    kind, _, target = head.partition(":")
    try:
        options = dict(parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query)))
    except ValueError:
        raise DetectorSpecError(f"invalid options {query!r} in detector spec {spec!r}") from None
    return kind.strip().lower(), target.strip(), options


def _float_option(options: dict[str, str], key: str, default: float, spec: str) -> float:
    raw = options.pop(key, None)
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise DetectorSpecError(f"{key}={raw!r} in {spec!r} is not a number") from None
    if not 0.0 <= value <= 1.0:
        raise DetectorSpecError(f"{key}={value} in {spec!r} must be between 0 and 1")
    return value


def make_detector(spec: str, fiducial_map: Any = None) -> Detector:
    """The detector a spec names. ``fiducial_map`` (a :class:`FiducialMap`) overrides a map path.

    Raises :class:`DetectorSpecError` for a malformed spec and :class:`DetectorUnavailableError`
    when the detector's package, weights or map is missing.
    """
    kind, target, options = split_spec(spec)
    if kind == "fiducial":
        from symplan_core.perception.fiducial import FiducialDetector, FiducialMap

        if options:
            raise DetectorSpecError(f"fiducial takes no options, got {', '.join(options)}")
        if fiducial_map is None and target:
            fiducial_map = FiducialMap.load(target)
        return FiducialDetector(fiducial_map)
    if kind in ("grounding-dino", "groundingdino", "yolo-world", "yoloworld"):
        if not target:
            raise DetectorSpecError(f"{kind} needs a local model path: {kind}:PATH")
        threshold = _float_option(options, "threshold", 0.3 if kind.startswith("grounding") else 0.25, spec)
        text_threshold = _float_option(options, "text_threshold", 0.25, spec)
        device = options.pop("device", "cpu")
        if options:
            raise DetectorSpecError(f"unknown option(s) {', '.join(options)} in {spec!r}")
        if kind.startswith("grounding"):
            from symplan_core.perception.open_vocab import GroundingDinoDetector

            return GroundingDinoDetector(Path(target), threshold, text_threshold, device)
        from symplan_core.perception.open_vocab import YoloWorldDetector

        return YoloWorldDetector(Path(target), threshold, device)
    raise DetectorSpecError(f"unknown detector {kind!r} in {spec!r} (expected one of: {', '.join(DETECTOR_FORMS)})")
