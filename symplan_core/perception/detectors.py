"""``make_detector(spec)``: the detector a spec string names, like the planner backends.

Spec forms (``make_detector``):

* ``fiducial`` or ``fiducial:MAP.yaml`` - OpenCV ArUco/AprilTag markers; the map names the
  dictionary and maps marker ids to BEHAVIOR synsets (or to rooms). No weights.
* ``grounding-dino:PATH[?threshold=0.3&text_threshold=0.25]`` - open-vocabulary detection through
  ``transformers`` (``AutoModelForZeroShotObjectDetection``) from a local model directory.
* ``yolo-world:PATH[?threshold=0.25]`` - ``ultralytics`` YOLO-World weights (the ``vision-gpu``
  extra), imported only when chosen.
* ``ssd-oid[:PATH][?threshold=0.3&nms=0.45&synsets=true]`` - a learned closed-set detector: SSD-MobileNetV2
  trained on OpenImages v4 (23 classes) through OpenCV DNN; without PATH the weights fetched by
  ``symplan data fetch --perception`` (``symplan models install ssd-mobilenet-oid``).

Nothing is downloaded: a path that is not a local directory/file is an error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from symplan_core.perception.detection import Detector
from symplan_core.perception.errors import DetectorSpecError

DETECTOR_FORMS = ("fiducial[:MAP.yaml]", "grounding-dino:PATH", "yolo-world:PATH", "ssd-oid[:PATH]")


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
    if kind == "ssd-oid":
        from symplan_core.perception.ssd import SsdOidDetector

        threshold = _float_option(options, "threshold", 0.3, spec)
        nms = _float_option(options, "nms", 0.45, spec)
        synsets = options.pop("synsets", "true").lower()
        if synsets not in ("true", "false", "1", "0"):
            raise DetectorSpecError(f"synsets={synsets!r} in {spec!r} must be true or false")
        if options:
            raise DetectorSpecError(f"unknown option(s) {', '.join(options)} in {spec!r}")
        return SsdOidDetector(Path(target) if target else None, threshold, nms, synsets=synsets in ("true", "1"))
    raise DetectorSpecError(f"unknown detector {kind!r} in {spec!r} (expected one of: {', '.join(DETECTOR_FORMS)})")
