"""Open-vocabulary detectors, prompted with the object prior: GroundingDINO and YOLO-World.

Both load weights from a local path only (``local_files_only``; nothing is downloaded) and import
their heavy packages when constructed. GroundingDINO runs through ``transformers``
(``AutoModelForZeroShotObjectDetection`` + ``AutoProcessor``), its prompt is the prior's phrases
joined by `` . `` as the model was trained, and the processor's own
``post_process_grounded_object_detection`` turns outputs into boxes and phrases. YOLO-World needs
``ultralytics`` (the ``vision-gpu`` extra), which cannot be installed next to the CPU torch of this
project; choosing it without the package is a typed error.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from symplan_core.perception.detection import Detection, Detector
from symplan_core.perception.errors import DetectorUnavailableError
from symplan_core.perception.frames import Frame


def _box_corners(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)


def _prompt_text(prompt: Sequence[str]) -> str:
    return " . ".join(p.strip().lower() for p in prompt if p.strip()) + " ."


class GroundingDinoDetector(Detector):
    name = "grounding-dino"

    def __init__(self, path: Path, threshold: float = 0.3, text_threshold: float = 0.25, device: str = "cpu") -> None:
        if not path.is_dir():
            raise DetectorUnavailableError(f"no GroundingDINO model directory at {path} (config.json, weights, "
                                           "processor and tokenizer files; nothing is downloaded)")
        try:
            import torch
            from transformers import AutoModelForZeroShotObjectDetection, AutoProcessor
        except ImportError as exc:
            raise DetectorUnavailableError(f"grounding-dino needs torch and transformers: pip install "
                                           f"'symplan-core[llm]' ({exc})") from None
        try:
            self.processor = AutoProcessor.from_pretrained(str(path), local_files_only=True)
            model = AutoModelForZeroShotObjectDetection.from_pretrained(str(path), local_files_only=True)
        except (OSError, ValueError, KeyError) as exc:
            raise DetectorUnavailableError(f"cannot load GroundingDINO from {path}: {exc}") from None
        self.model = model.to(device).eval()
        self.device = device
        self.threshold, self.text_threshold = threshold, text_threshold
        self._torch = torch

    @property
    def open_vocabulary(self) -> bool:
        return True

    def detect(self, frame: Frame, prompt: Sequence[str] = ()) -> list[Detection]:
        if not prompt:
            return []
        inputs = self.processor(images=frame.rgb, text=_prompt_text(prompt), return_tensors="pt").to(self.device)
        with self._torch.no_grad():
            outputs = self.model(**inputs)
        (result,) = self.processor.post_process_grounded_object_detection(
            outputs, input_ids=inputs["input_ids"], threshold=self.threshold, text_threshold=self.text_threshold,
            target_sizes=[(frame.height, frame.width)])
        found = []
        for box, score, label in zip(result["boxes"].tolist(), result["scores"].tolist(), result["text_labels"],
                                     strict=True):
            x0, y0, x1, y1 = (float(v) for v in box)
            x0, x1 = max(0.0, min(x0, x1)), min(float(frame.width - 1), max(x0, x1))
            y0, y1 = max(0.0, min(y0, y1)), min(float(frame.height - 1), max(y0, y1))
            if x1 - x0 < 2 or y1 - y0 < 2:
                continue
            found.append(Detection(label=str(label).strip(), score=float(score), corners=_box_corners(x0, y0, x1, y1)))
        return found

    def close(self) -> None:
        self.model = None


class YoloWorldDetector(Detector):
    name = "yolo-world"

    def __init__(self, path: Path, threshold: float = 0.25, device: str = "cpu") -> None:
        try:
            from ultralytics import YOLOWorld
        except ImportError as exc:
            raise DetectorUnavailableError("yolo-world needs ultralytics: pip install 'symplan-core[vision-gpu]' "
                                           f"(it needs a torchvision that matches torch; {exc})") from None
        if not path.is_file():
            raise DetectorUnavailableError(f"no YOLO-World weights at {path} (nothing is downloaded)")
        self.model = YOLOWorld(str(path))
        self.threshold, self.device = threshold, device
        self._classes: tuple[str, ...] = ()

    @property
    def open_vocabulary(self) -> bool:
        return True

    def detect(self, frame: Frame, prompt: Sequence[str] = ()) -> list[Detection]:
        classes = tuple(p.strip().lower() for p in prompt if p.strip())
        if not classes:
            return []
        if classes != self._classes:
            self.model.set_classes(list(classes))
            self._classes = classes
        (result,) = self.model.predict(np.ascontiguousarray(frame.rgb[..., ::-1]), conf=self.threshold,
                                       device=self.device, verbose=False)
        found = []
        for box, score, cls in zip(result.boxes.xyxy.tolist(), result.boxes.conf.tolist(),
                                   result.boxes.cls.tolist(), strict=True):
            found.append(Detection(label=classes[int(cls)], score=float(score), corners=_box_corners(*box)))
        return found
