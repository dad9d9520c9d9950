"""Simulation apparatus: the symbolic world that stands in for a robot and its camera.

:mod:`~symplan_core.sim.world` executes subgoals on an engine state (with the silent faults a real
controller makes) and renders that state through the perception rigs' scene renderer. The ROS
simulators (``ros2_ws/src/symplan_sim``: skill controller, camera), ``bench/bench_monitor.py`` and
the execution-monitor tests drive it; the runtime, the node and perception never import it.
"""
