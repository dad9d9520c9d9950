"""Health records of the runtime's parts (planner, LLM endpoint, camera).

The ROS node turns them into /diagnostics messages (``symplan_ros.messages.diagnostic_array``);
the levels are diagnostic_msgs/DiagnosticStatus's.
"""

from __future__ import annotations

from dataclasses import dataclass

OK, WARN, ERROR = 0, 1, 2


@dataclass
class Health:
    name: str
    level: int
    message: str
    values: dict[str, str]
