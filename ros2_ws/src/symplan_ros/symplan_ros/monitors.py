"""Health records and /diagnostics messages of the planner node (diagnostic_msgs, no updater lib).

diagnostic_updater is not available from PyPI, so the node builds DiagnosticArray messages
itself from these small health records.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

OK, WARN, ERROR = 0, 1, 2  # diagnostic_msgs/DiagnosticStatus levels (bytes on the wire)


@dataclass
class Health:
    name: str
    level: int
    message: str
    values: dict[str, str]


def diagnostic_array(node_name: str, stamp: Any, items: list[Health]) -> Any:
    from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue

    arr = DiagnosticArray()
    arr.header.stamp = stamp
    for h in items:
        arr.status.append(DiagnosticStatus(
            level=bytes([h.level]), name=f"{node_name}: {h.name}", message=h.message,
            hardware_id=node_name,
            values=[KeyValue(key=k, value=v) for k, v in h.values.items()],
        ))
    return arr
