"""Key-frame selection from a stream: sharp frames that show something new, in bounded memory.

Fed one frame at a time (:meth:`KeyFrameSelector.push`), it keeps at most ``max_frames`` key
frames. Sharpness is the variance of the Laplacian (OpenCV) of the grey image; change is the
mean absolute difference of small grey thumbnails against the last key frame. A blurry frame
(below ``min_sharpness``) is skipped unless nothing better has come; a frame that barely differs
from the last key frame replaces it only when sharper; when the set is full, the key frame that
adds least (smallest change to its predecessor) is dropped. Nothing else is held.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from symplan_core.perception.frames import Frame

_THUMB = (64, 48)


class KeyFrameConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    max_frames: int = Field(default=8, ge=1, le=256)
    min_sharpness: float = Field(default=20.0, ge=0, description="variance of the Laplacian (grey levels^2)")
    min_change: float = Field(default=0.02, ge=0, le=1, description="mean |thumbnail difference| / 255")


@dataclass
class _Kept:
    frame: Frame
    thumb: np.ndarray
    sharpness: float
    change: float  # to the key frame before it when it was taken


def sharpness(gray: np.ndarray) -> float:
    """Variance of the Laplacian: high for in-focus detail, low for blur."""
    return float(cv2.Laplacian(gray, cv2.CV_32F).var())


def _thumb(gray: np.ndarray) -> np.ndarray:
    return cv2.resize(gray, _THUMB, interpolation=cv2.INTER_AREA).astype(np.float32)


class KeyFrameSelector:
    """Bounded key-frame set; see the module docstring for the policy."""

    def __init__(self, config: KeyFrameConfig | None = None) -> None:
        self.config = config or KeyFrameConfig()
        self._kept: list[_Kept] = []
        self._fallback: _Kept | None = None  # sharpest blurry frame, used if no sharp one ever comes
        self.seen = 0

    def push(self, frame: Frame) -> bool:
        """Offer one frame; True when it became (or replaced) a key frame."""
        self.seen += 1
        gray = frame.gray()
        sharp = sharpness(gray)
        thumb = _thumb(gray)
        if sharp < self.config.min_sharpness:
            if self._fallback is None or sharp > self._fallback.sharpness:
                self._fallback = _Kept(frame, thumb, sharp, 0.0)
            return False
        if not self._kept:
            self._kept.append(_Kept(frame, thumb, sharp, 1.0))
            return True
        last = self._kept[-1]
        change = float(np.mean(np.abs(thumb - last.thumb))) / 255.0
        if change < self.config.min_change:
            if sharp > last.sharpness:
                self._kept[-1] = _Kept(frame, thumb, sharp, last.change)
                return True
            return False
        self._kept.append(_Kept(frame, thumb, sharp, change))
        if len(self._kept) > self.config.max_frames:
            # Drop the least informative key frame (never the first: it anchors the sequence).
            drop = min(range(1, len(self._kept)), key=lambda i: (self._kept[i].change, self._kept[i].sharpness))
            del self._kept[drop]
            if drop < len(self._kept):  # its successor's change is now measured against the one before
                nxt, prev = self._kept[drop], self._kept[drop - 1]
                nxt.change = float(np.mean(np.abs(nxt.thumb - prev.thumb))) / 255.0
            return drop != len(self._kept)
        return True

    def key_frames(self) -> list[Frame]:
        """The key frames in stream order (the sharpest blurry frame if no sharp one came)."""
        if not self._kept and self._fallback is not None:
            return [self._fallback.frame]
        return [k.frame for k in self._kept]

    def extend(self, frames) -> list[Frame]:
        for frame in frames:
            self.push(frame)
        return self.key_frames()
