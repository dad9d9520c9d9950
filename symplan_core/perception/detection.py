"""Detection: one ``Detector`` interface and the ``Detection`` it yields (what every detector returns).

The detectors themselves live in :mod:`~symplan_core.perception.fiducial` and
:mod:`~symplan_core.perception.open_vocab`; :func:`~symplan_core.perception.detectors.make_detector`
chooses one from a spec string.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from symplan_core.perception.frames import Frame


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
