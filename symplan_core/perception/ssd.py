"""A learned closed-set detector: SSD-MobileNetV2 trained on OpenImages v4 (23 classes), run through
OpenCV's DNN module (``cv2.dnn.readNetFromTFLite``).

The weights are MediaPipe Objectron's first-stage detector
(``object_detection_ssd_mobilenetv2_oidv4_fp16.tflite``, Apache-2.0), shipped inside the npm
package ``@mediapipe/objectron``; ``symplan data fetch --perception`` (or ``symplan models install
ssd-mobilenet-oid``) cuts it and its label map out of the package and checks their hashes.

The model outputs raw SSD tensors: 1917 x 4 box encodings and 1917 x 24 class logits (class 0 is
the background). Decoding follows MediaPipe's own graph for this model
(``mediapipe/modules/objectron/object_detection_oid_v4_cpu.pbtxt``):

* input: the whole image stretched to 300 x 300 RGB, scaled to [-1, 1];
* anchors (:func:`ssd_anchors`, MediaPipe's ``SsdAnchorsCalculator``): 6 layers with strides 16,
  32, 64, 128, 256, 512 on a 300 x 300 input, scales linear from 0.2 to 0.95, aspect ratios 1, 2,
  0.5, 3, 0.3333 plus one interpolated-scale square anchor per cell, and the reduced 3-anchor
  lowest layer (scale 0.1 at ratio 1, then ratios 2 and 0.5): 19x19x3 + 10x10x6 + 5x5x6 + 3x3x6 +
  2x2x6 + 1x1x6 = 1917 anchors;
* boxes (:func:`decode_boxes`, ``TfLiteTensorsToDetectionsCalculator``): encodings are
  (y, x, h, w) with scales 10, 10, 5, 5: centre = offset / 10 * anchor size + anchor centre,
  size = exp(offset / 5) * anchor size;
* scores: sigmoid of the logits, background ignored, the best class per anchor; then per-class
  non-maximum suppression.

Each detection carries the BEHAVIOR synset of its class (:data:`OID_SYNSETS`): the classes are a
closed set of physical things, so their synsets are fixed here rather than guessed from the word
(the word alone gives ``table.n.01``, a table of data, and ``book.n.01``, a written work; BEHAVIOR's
are ``table.n.02`` and ``book.n.02``). Classes with no BEHAVIOR synset (Cat, Dog, Cattle) carry
none and are dropped with the pipeline's reason. ``synsets=False`` leaves every detection to the
pipeline's label grounding (and the config's ``aliases``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from typing_extensions import override

from symplan_core.perception.detection import Detection, Detector
from symplan_core.perception.errors import DetectorUnavailableError
from symplan_core.perception.frames import Frame

MODEL_FILE = "ssd_mobilenetv2_oidv4_fp16.tflite"
LABEL_FILE = "labelmap.txt"
INPUT_SIZE = 300
BOX_OUTPUT = "raw_outputs/box_encodings"
SCORE_OUTPUT = "raw_outputs/class_predictions"
BOX_SCALES = (10.0, 10.0, 5.0, 5.0)  # y, x, h, w

#: OpenImages v4 class (this model's label map) -> BEHAVIOR synset (None: BEHAVIOR has none).
#: Chosen by WordNet sense and checked against the task files (tests: each is a known synset).
OID_SYNSETS: dict[str, str | None] = {
    "Bicycle": "bicycle.n.01", "Boot": "boot.n.01", "Laptop": "laptop.n.01", "Person": "person.n.01",
    "Chair": "chair.n.01", "Cattle": None, "Desk": "desk.n.01", "Cat": None,
    "Computer mouse": "mouse.n.04", "Computer monitor": "monitor.n.04", "Box": "box.n.01", "Mug": "mug.n.04",
    "Coffee cup": "coffee_cup.n.01", "Stationary bicycle": "exercise_bike.n.01",
    "Table": "table.n.02",  # furniture (table.n.01 is a table of data)
    "Bottle": "bottle.n.01",  # a vessel (bottle.n.03 is a baby's bottle)
    "High heels": "shoe.n.01", "Vehicle": "vehicle.n.01", "Footwear": "footwear.n.01", "Dog": None,
    "Book": "book.n.02",  # the bound pages (book.n.01 is a written work)
    "Camera": "camera.n.01", "Car": "car.n.01",
}


@dataclass(frozen=True)
class AnchorOptions:
    """MediaPipe ``SsdAnchorsCalculatorOptions`` (the fields this model uses)."""

    input_height: int = INPUT_SIZE
    input_width: int = INPUT_SIZE
    min_scale: float = 0.2
    max_scale: float = 0.95
    strides: tuple[int, ...] = (16, 32, 64, 128, 256, 512)
    aspect_ratios: tuple[float, ...] = (1.0, 2.0, 0.5, 3.0, 0.3333)
    anchor_offset: float = 0.5
    reduce_boxes_in_lowest_layer: bool = True
    interpolated_scale_aspect_ratio: float = 1.0


def _scale(options: AnchorOptions, index: int) -> float:
    count = len(options.strides)
    if count == 1:
        return (options.min_scale + options.max_scale) * 0.5
    return options.min_scale + (options.max_scale - options.min_scale) * index / (count - 1.0)


def ssd_anchors(options: AnchorOptions | None = None) -> np.ndarray:
    """Anchors as an N x 4 float32 array of (y_center, x_center, h, w), normalised to [0, 1], in the
    order the model's outputs use (layer, row, column, anchor)."""
    o = options or AnchorOptions()
    rows: list[tuple[float, float, float, float]] = []
    layer = 0
    while layer < len(o.strides):
        ratios: list[float] = []
        scales: list[float] = []
        last = layer
        while last < len(o.strides) and o.strides[last] == o.strides[layer]:  # same stride: merged
            scale = _scale(o, last)
            if last == 0 and o.reduce_boxes_in_lowest_layer:
                ratios += [1.0, 2.0, 0.5]
                scales += [0.1, scale, scale]
            else:
                ratios += list(o.aspect_ratios)
                scales += [scale] * len(o.aspect_ratios)
                if o.interpolated_scale_aspect_ratio > 0:
                    following = 1.0 if last == len(o.strides) - 1 else _scale(o, last + 1)
                    scales.append(math.sqrt(scale * following))
                    ratios.append(o.interpolated_scale_aspect_ratio)
            last += 1
        sizes = [(s / math.sqrt(r), s * math.sqrt(r)) for s, r in zip(scales, ratios, strict=True)]  # (h, w)
        stride = o.strides[layer]
        fh, fw = math.ceil(o.input_height / stride), math.ceil(o.input_width / stride)
        for y in range(fh):
            for x in range(fw):
                yc, xc = (y + o.anchor_offset) / fh, (x + o.anchor_offset) / fw
                rows.extend((yc, xc, h, w) for h, w in sizes)
        layer = last
    return np.asarray(rows, dtype=np.float32)


def decode_boxes(encodings: np.ndarray, anchors: np.ndarray,
                 scales: tuple[float, float, float, float] = BOX_SCALES) -> np.ndarray:
    """Raw (y, x, h, w) box encodings -> N x 4 (ymin, xmin, ymax, xmax), normalised to the input."""
    enc = np.asarray(encodings, dtype=np.float64).reshape(-1, 4)
    anc = np.asarray(anchors, dtype=np.float64)
    if enc.shape[0] != anc.shape[0]:
        raise ValueError(f"{enc.shape[0]} box encodings for {anc.shape[0]} anchors")
    sy, sx, sh, sw = scales
    yc = enc[:, 0] / sy * anc[:, 2] + anc[:, 0]
    xc = enc[:, 1] / sx * anc[:, 3] + anc[:, 1]
    h = np.exp(enc[:, 2] / sh) * anc[:, 2]
    w = np.exp(enc[:, 3] / sw) * anc[:, 3]
    return np.stack([yc - h / 2, xc - w / 2, yc + h / 2, xc + w / 2], axis=1)


def load_labels(path: Path) -> list[str]:
    """The label map: one class name per line, line 0 the background (``???``)."""
    try:
        labels = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
    except (OSError, UnicodeDecodeError) as exc:
        raise DetectorUnavailableError(f"cannot read the label map {path}: {exc}") from None
    while labels and not labels[-1]:
        labels.pop()
    if len(labels) < 2:
        raise DetectorUnavailableError(f"label map {path} has {len(labels)} lines; expected background + classes")
    return labels


def _locate(path: Path | None) -> tuple[Path, Path]:
    if path is None:
        from symplan_core.fetch import DataError, perception_file

        try:
            path = perception_file("ssd_oid")
        except DataError as exc:
            raise DetectorUnavailableError(f"ssd-oid weights: {exc} (or `symplan models install "
                                           "ssd-mobilenet-oid`)") from None
    model = path if path.is_file() else path / MODEL_FILE
    labels = model.with_name(LABEL_FILE)
    if not model.is_file():
        raise DetectorUnavailableError(f"no SSD model at {model} (a directory with {MODEL_FILE} and {LABEL_FILE}, "
                                       "or the .tflite file with labelmap.txt beside it; nothing is downloaded)")
    if not labels.is_file():
        raise DetectorUnavailableError(f"no label map {labels} beside {model.name}")
    return model, labels


class SsdOidDetector(Detector):
    """SSD-MobileNetV2 (OpenImages v4) through OpenCV DNN. Closed set: it ignores the prompt and
    reports only its 23 classes (``labels``); ``threshold`` is the minimum class probability,
    ``nms`` the IoU above which a lower-scored box of the same class is suppressed."""

    name = "ssd-oid"

    def __init__(self, path: Path | None = None, threshold: float = 0.3, nms: float = 0.45,
                 max_detections: int = 50, synsets: bool = True) -> None:
        model, label_path = _locate(path)
        self.labels = load_labels(label_path)
        try:
            # OpenCV 5's classic engine returns both raw outputs from one forward pass (the new
            # engine forwards one named output per call): identical numbers, about 40% less time.
            classic = getattr(cv2.dnn, "ENGINE_CLASSIC", None)
            self.net: cv2.dnn.Net | None = cv2.dnn.readNetFromTFLite(str(model), engine=classic) \
                if classic is not None \
                else cv2.dnn.readNetFromTFLite(str(model))
        except cv2.error as exc:
            raise DetectorUnavailableError(f"OpenCV cannot load {model}: {str(exc).strip().splitlines()[-1]}") \
                from None
        self.anchors = ssd_anchors()
        self.threshold, self.nms, self.max_detections = threshold, nms, max_detections
        self.synsets = dict(OID_SYNSETS) if synsets else {}
        self.path = model

    def raw_outputs(self, rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The model's (box encodings N x 4, class logits N x C) for an RGB uint8 image."""
        resized = cv2.resize(rgb, (INPUT_SIZE, INPUT_SIZE), interpolation=cv2.INTER_LINEAR)  # STRETCH, as MediaPipe
        blob = (resized.astype(np.float32) / 127.5 - 1.0).transpose(2, 0, 1)[None]
        blob = np.ascontiguousarray(blob)
        net = self.net
        if net is None:
            raise DetectorUnavailableError(f"the detector of {self.path} is closed")
        try:
            net.setInput(blob)
            raw = list(net.forward([BOX_OUTPUT, SCORE_OUTPUT]))
        except cv2.error:  # an engine that forwards one named output per call
            raw = []
            for name in (BOX_OUTPUT, SCORE_OUTPUT):
                net.setInput(blob)
                raw.append(net.forward(name))
        boxes, logits = (np.asarray(r, dtype=np.float32).reshape(len(self.anchors), -1) for r in raw)
        if logits.shape[1] != len(self.labels):
            raise DetectorUnavailableError(f"the model scores {logits.shape[1]} classes but the label map has "
                                           f"{len(self.labels)}")
        return boxes, logits

    @override  # a closed-set detector: the Detector interface's prompt is not read
    def detect(self, frame: Frame, prompt: Sequence[str] = ()) -> list[Detection]:
        encodings, logits = self.raw_outputs(frame.rgb)
        probs = 1.0 / (1.0 + np.exp(-logits[:, 1:].astype(np.float64)))  # class 0 = background, ignored
        cls = probs.argmax(axis=1)
        score = probs[np.arange(len(cls)), cls]
        keep = np.nonzero(score >= self.threshold)[0]
        if keep.size == 0:
            return []
        boxes = decode_boxes(encodings[keep], self.anchors[keep])
        h, w = frame.height, frame.width
        x0 = np.clip(boxes[:, 1] * w, 0, w - 1)
        y0 = np.clip(boxes[:, 0] * h, 0, h - 1)
        x1 = np.clip(boxes[:, 3] * w, 0, w - 1)
        y1 = np.clip(boxes[:, 2] * h, 0, h - 1)
        found: list[Detection] = []
        for c in np.unique(cls[keep]):
            idx = np.nonzero(cls[keep] == c)[0]
            rects = [[float(x0[i]), float(y0[i]), float(x1[i] - x0[i]), float(y1[i] - y0[i])] for i in idx]
            chosen = cv2.dnn.NMSBoxes(rects, [float(score[keep][i]) for i in idx], self.threshold, self.nms)
            for j in np.asarray(chosen, dtype=np.int64).reshape(-1):
                i = idx[j]
                if x1[i] - x0[i] < 2 or y1[i] - y0[i] < 2:
                    continue
                corners = np.array([[x0[i], y0[i]], [x1[i], y0[i]], [x1[i], y1[i]], [x0[i], y1[i]]], np.float32)
                label = self.labels[int(c) + 1]
                found.append(Detection(label=label, score=float(score[keep][i]), corners=corners,
                                       synset=self.synsets.get(label)))
        found.sort(key=lambda d: -d.score)
        return found[: self.max_detections]

    def close(self) -> None:
        self.net = None
