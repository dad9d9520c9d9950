"""Typed errors of the perception pipeline: bad input is reported, never half-processed."""

from __future__ import annotations

from symplan_core.errors import SymPlanError


class PerceptionError(SymPlanError):
    """Base of every error the perception package raises on bad input or set-up."""


class FrameError(PerceptionError):
    """An image that cannot be used: unreadable, truncated, an unknown encoding, a bad array."""


class DepthError(PerceptionError):
    """Depth that is missing where it is needed, or does not match its colour frame."""


class IntrinsicsError(PerceptionError):
    """Camera intrinsics that are malformed or do not match the frames."""


class DetectorSpecError(PerceptionError):
    """A detector spec string that names no detector or carries bad options."""


class DetectorUnavailableError(PerceptionError):
    """The chosen detector cannot run here: a missing package, weights directory or map."""


class NoDetectionsError(PerceptionError):
    """Nothing usable was detected in any key frame: there is no scene to build a task from."""


class OutputError(PerceptionError):
    """The outputs cannot be written (a rejected draft, or the file system refused)."""
