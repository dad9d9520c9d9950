"""Perception's evaluation rigs: apparatus that measures and exercises perception, not part of it.

* :mod:`~symplan_core.perception.rigs.synthetic` and :mod:`~symplan_core.perception.rigs.layout`:
  the scene renderer (a task's ``:init`` laid out as boxes with fiducial tags, rendered as RGB-D
  frames with noise); the camera simulator, ``symplan perceive render``, the tests and the
  benchmarks use it.
* :mod:`~symplan_core.perception.rigs.evaluation`: ``symplan perceive eval`` (rendered tasks ->
  ``perceive`` -> compared with the released BDDL) and the instruction files it reads.
* :mod:`~symplan_core.perception.rigs.tiny_gdino`: a tiny random GroundingDINO checkpoint that
  exercises the open-vocabulary detector's code path in tests and benchmarks.

Production code (``perception``'s pipeline, the runtime, the ROS node) never imports this package.
"""

from __future__ import annotations

from symplan_core.perception.rigs.synthetic import NoiseConfig, RenderedTask, render_task

__all__ = ["NoiseConfig", "RenderedTask", "render_task"]
