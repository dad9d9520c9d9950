"""One root for every error SymPlan raises on purpose: ``except SymPlanError`` catches bad input
and bad set-up from any layer, and nothing else (a bug stays a bug).

Each layer has its own typed errors under this root (the layer's module defines them, so they sit
next to the code that raises them):

=============  ==========================================================  ============================
layer          root (and main subclasses)                                  also a
=============  ==========================================================  ============================
BDDL           ``bddl.BDDLError`` (``BDDLSyntaxError``)                    --
task           :class:`TaskError` (``engine.compile_task``)                ``ValueError``
engine         :class:`EngineConfigError` (unknown action set or effect)   ``ValueError``
backend        :class:`BackendError` (``llm.BackendSpecError``,            ``ValueError`` / ``RuntimeError``
               ``BackendUnavailableError``, model registry errors)         as before
perception     ``perception.PerceptionError`` (``FrameError``, ...)        --
bag            ``rosio.BagError``; images: ``rosio.images.ImageError``     ``ValueError`` (images)
data           ``fetch.DataError`` (``tasks.TaskNotFound``, EAI data)       --
runtime        ``runtime.sources.SceneError``, ``runtime.limits.RequestRejected``,  ``ValueError``
               ``runtime.camera.CameraUnavailable``
=============  ==========================================================  ============================

Classes that were ``ValueError`` (or another built-in) before keep it as a second base, so code
that caught the built-in still works. What the engine finds in a plan is no exception: it is data,
``engine.Finding`` (an error, warning or diagnostic of one step; formerly ``EngineError``).

This module imports nothing from the project: every layer may import it.
"""

from __future__ import annotations

__all__ = ["BackendError", "EngineConfigError", "SymPlanError", "TaskError"]


class SymPlanError(Exception):
    """Base of every error SymPlan raises for bad input or bad set-up."""


class TaskError(SymPlanError, ValueError):
    """A problem that cannot be compiled into a task (unknown robot, an object or predicate the
    engine cannot place, an unknown action set). Raised by ``engine.compile_task``."""


class EngineConfigError(SymPlanError, ValueError):
    """The engine was asked for something it does not have: an unknown action set or effect."""


class BackendError(SymPlanError):
    """Base of the planner backends' errors: a bad spec, a backend that cannot run here, a model
    that is not installed or does not match its registry entry."""
