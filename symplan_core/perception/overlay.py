"""Overlays: what perception believes, drawn on the key frames (``symplan perceive --overlay``,
``symplan replay --overlay``).

Everything drawn comes from the provenance sidecar (:mod:`~symplan_core.perception.provenance`),
the same record ``task.provenance.json`` holds, so the picture shows exactly what the BDDL was
built from: each detected object's image box with its instance name, detector label and
confidence; each observed two-object relation (``ontop``, ``inside``, ``nextto``, ``under``...)
as a line from the first object to the second with the predicate at its middle; and, in a panel
beside the image, the verdict, the objects and every fact with its source (observed or prior).
Overlays are drawn for rejected drafts too: that is when a person most needs to look.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from symplan_core.perception.errors import OutputError
from symplan_core.perception.frames import Frame

PANEL_WIDTH = 330
_FONT = cv2.FONT_HERSHEY_SIMPLEX


def colour(name: str) -> tuple[int, int, int]:
    """A stable, saturated RGB colour for an instance name."""
    hue = int(hashlib.sha256(name.encode()).hexdigest()[:4], 16) % 180
    hsv = np.array([[[hue, 220, 255]]], np.uint8)
    r, g, b = cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB)[0, 0]
    return int(r), int(g), int(b)


def image_boxes(provenance: dict[str, Any], frame: int) -> dict[str, list[tuple[float, float, float, float]]]:
    """Instance -> its image boxes (x0, y0, x1, y1) in one frame, from the provenance."""
    out: dict[str, list[tuple[float, float, float, float]]] = {}
    for inst, entry in provenance.get("objects", {}).items():
        for item in entry.get("image_boxes", []):
            if item.get("frame") == frame:
                x0, y0, x1, y1 = (float(v) for v in item["box"])
                out.setdefault(inst, []).append((x0, y0, x1, y1))
    return out


def key_frame(provenance: dict[str, Any], count: int) -> int:
    """The frame in which the most objects were seen (the first on ties)."""
    seen = [len(image_boxes(provenance, i)) for i in range(count)]
    return int(np.argmax(seen)) if seen else 0


def _fact_args(fact: str) -> tuple[str, list[str]]:
    words = fact.strip().strip("()").split()
    negated = words[:1] == ["not"]
    if negated:
        words = fact.strip()[1:-1].strip()[3:].strip().strip("()").split()
    return ("not " if negated else "") + (words[0] if words else ""), words[1:]


def _label(img: np.ndarray, text: str, x: int, y: int, rgb: tuple[int, int, int], scale: float = 0.45) -> None:
    (tw, th), base = cv2.getTextSize(text, _FONT, scale, 1)
    h, w = img.shape[:2]
    x = int(min(max(x, 0), max(w - tw - 4, 0)))
    y = int(min(max(y, th + 4), h - base - 2))
    cv2.rectangle(img, (x, y - th - 4), (x + tw + 4, y + base), (0, 0, 0), cv2.FILLED)
    cv2.putText(img, text, (x + 2, y - 2), _FONT, scale, rgb, 1, cv2.LINE_AA)


def _centre(box: tuple[float, float, float, float]) -> tuple[int, int]:
    return int(round((box[0] + box[2]) / 2)), int(round((box[1] + box[3]) / 2))


def draw(rgb: np.ndarray, provenance: dict[str, Any], frame: int = 0, accepted: bool | None = None,
         panel: bool = True) -> np.ndarray:
    """The frame (RGB, H x W x 3 uint8) with boxes, labels and relations drawn; with ``panel``, a
    text panel on the right lists the verdict, objects and facts. Returns a new RGB image."""
    img = np.ascontiguousarray(rgb.copy())
    boxes = image_boxes(provenance, frame)
    objects = provenance.get("objects", {})
    for inst, rects in boxes.items():
        col = colour(inst)
        entry = objects[inst]
        for x0, y0, x1, y1 in rects:
            cv2.rectangle(img, (int(x0), int(y0)), (int(x1), int(y1)), col, 2)
        x0, y0 = int(rects[0][0]), int(rects[0][1])
        conf = entry.get("confidence")
        text = f"{inst} ({entry.get('label', '')}{'' if conf is None else f' {conf:.2f}'})"
        _label(img, text, x0 + 2, y0 + 16, col)
    drawn_facts = 0
    for fact in provenance.get("facts", []):
        if fact.get("source") != "observed":
            continue
        predicate, args = _fact_args(fact["fact"])
        if len(args) != 2 or args[0] not in boxes or args[1] not in boxes:
            continue
        a, b = _centre(boxes[args[0]][0]), _centre(boxes[args[1]][0])
        cv2.arrowedLine(img, a, b, (255, 255, 255), 3, cv2.LINE_AA, tipLength=0.04)
        cv2.arrowedLine(img, a, b, colour(args[0]), 1, cv2.LINE_AA, tipLength=0.04)
        _label(img, predicate, (a[0] + b[0]) // 2, (a[1] + b[1]) // 2, (255, 255, 255))
        drawn_facts += 1
    if not panel:
        return img
    return np.hstack([img, _panel(img.shape[0], provenance, frame, accepted)])


def _panel(height: int, provenance: dict[str, Any], frame: int, accepted: bool | None) -> np.ndarray:
    side = np.full((height, PANEL_WIDTH, 3), 24, np.uint8)
    lines: list[tuple[str, tuple[int, int, int]]] = []
    if accepted is not None:
        lines.append(("ACCEPTED" if accepted else "REJECTED", (90, 230, 90) if accepted else (240, 80, 80)))
    lines.append((f"frame {frame}  detector {provenance.get('detector', '?')}", (220, 220, 220)))
    goal = provenance.get("goal", {})
    if goal.get("activity"):
        lines.append((f"goal from {goal['activity']}", (220, 220, 220)))
    lines.append(("objects:", (255, 255, 255)))
    for inst, entry in provenance.get("objects", {}).items():
        lines.append((f" {inst} [{entry.get('source')}]", colour(inst) if entry.get("image_boxes") else (150, 150, 150)))
    lines.append(("facts:", (255, 255, 255)))
    facts = provenance.get("facts", [])
    for fact in facts:
        lines.append((f" {fact['fact']} [{fact.get('source')}]",
                      (235, 235, 120) if fact.get("source") == "observed" else (150, 150, 150)))
    if not facts:
        lines.append((" (none)", (150, 150, 150)))
    step = 15
    room = max(1, (height - 10) // step)
    if len(lines) > room:
        lines = lines[:room - 1] + [(f" ... {len(lines) - room + 1} more (see the provenance)", (150, 150, 150))]
    for k, (text, col) in enumerate(lines):
        cv2.putText(side, text[:52], (6, 16 + k * step), _FONT, 0.38, col, 1, cv2.LINE_AA)
    return side


def write_png(path: str | Path, rgb: np.ndarray) -> Path:
    """Write an RGB image as PNG (to a temporary name, then renamed); :class:`OutputError` on failure."""
    path = Path(path)
    if path.suffix.lower() != ".png":
        raise OutputError(f"an overlay is a PNG file: {path} does not end in .png")
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp.png")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        ok = cv2.imwrite(str(tmp), np.ascontiguousarray(rgb[..., ::-1]))
        if not ok:
            raise OutputError(f"cannot write the overlay {path}: OpenCV could not write {tmp.name}")
        os.replace(tmp, path)
    except (OSError, cv2.error) as exc:
        _discard(tmp)
        raise OutputError(f"cannot write the overlay {path}: {getattr(exc, 'strerror', None) or exc}") from None
    except OutputError:
        _discard(tmp)
        raise
    return path


def _discard(tmp: Path) -> None:
    try:
        tmp.unlink(missing_ok=True)
    except OSError:
        pass  # its directory is not one: nothing was written


def write_overlay(frames: Sequence[Frame], provenance: dict[str, Any], path: str | Path,
                  accepted: bool | None = None) -> Path:
    """The key frame (most objects seen) of ``frames`` drawn with :func:`draw`, written to ``path`` (PNG)."""
    if not frames:
        raise OutputError("no frames to draw an overlay on")
    index = key_frame(provenance, len(frames))
    return write_png(path, draw(frames[index].rgb, provenance, index, accepted))


def write_overlays(frames: Sequence[Frame], provenance: dict[str, Any], directory: str | Path,
                   accepted: bool | None = None) -> list[Path]:
    """One overlay per key frame (``frame_000.png`` ...) in ``directory``."""
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise OutputError(f"--overlay {directory} exists and is not a directory")
    return [write_png(directory / f"frame_{i:03d}.png", draw(f.rgb, provenance, i, accepted))
            for i, f in enumerate(frames)]
