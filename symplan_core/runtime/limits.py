"""What a Plan goal or a VerifyPlan request may carry: sizes and the files a goal may name.

The checks run where a request enters the node, before any parsing, compiling or file reading,
so a hostile or broken client costs the node one string scan and a typed failure.

* text fields are limited in UTF-8 bytes: ``bddl`` (``limits.max_bddl_bytes``), ``plan_text``
  (``limits.max_plan_bytes``), the short fields ``instruction``, ``task_id``, ``benchmark``,
  ``robot``, ``answer`` and ``clarification_id`` (``limits.max_text_bytes``);
* ``task_id`` is an activity name (``activity`` or ``BENCH/activity``, letters, digits, ``_``,
  ``-``) or the path of a ``.bddl`` file inside one of ``scene.goal_file_dirs`` (symbolic links
  and ``..`` resolved first); with no such directory configured a goal names no file at all;
* ``benchmark`` is empty or a known benchmark.

A file that a request may name is still read only up to ``limits.max_bddl_bytes``
(:func:`read_bddl_file`).
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from symplan_core.errors import SymPlanError
from symplan_core.fetch import BENCHMARKS
from symplan_core.runtime.config import LimitsSection, SceneSection

_TASK_NAME = re.compile(r"(?:(?P<bench>[A-Za-z0-9]+)/)?[A-Za-z0-9][A-Za-z0-9_-]*")


class RequestRejected(SymPlanError, ValueError):
    """A request outside the node's input limits; ``reasons`` names each violated limit."""

    def __init__(self, reasons: list[str]) -> None:
        super().__init__("; ".join(reasons))
        self.reasons = reasons


@dataclass(frozen=True)
class InputLimits:
    max_bddl_bytes: int = 65_536  # the largest BEHAVIOR problem file is 7.5 kB
    max_plan_bytes: int = 65_536  # a 100-step plan is about 3 kB
    max_text_bytes: int = 4_096
    goal_file_dirs: tuple[str, ...] = ()  # directories whose .bddl files a goal's task_id may name

    @classmethod
    def from_config(cls, limits: LimitsSection, scene: SceneSection) -> InputLimits:
        """The ``limits.*`` sizes and ``scene.goal_file_dirs`` (directories separated by ``os.pathsep``)."""
        dirs = tuple(os.path.realpath(os.path.expanduser(d))
                     for d in scene.goal_file_dirs.split(os.pathsep) if d.strip())
        return cls(limits.max_bddl_bytes, limits.max_plan_bytes, limits.max_text_bytes, dirs)

    def check(self, *, bddl: str = "", plan_text: str | None = None, task_id: str = "", benchmark: str = "",
              instruction: str = "", robot: str = "", answer: str = "", clarification_id: str = "") -> None:
        """Raise :class:`RequestRejected` naming every field over its limit (nothing is read)."""
        reasons = [reason for reason in (
            _too_big("bddl", bddl, self.max_bddl_bytes, "limits.max_bddl_bytes"),
            _too_big("plan_text", plan_text or "", self.max_plan_bytes, "limits.max_plan_bytes"),
            *(_too_big(name, value, self.max_text_bytes, "limits.max_text_bytes")
              for name, value in (("instruction", instruction), ("task_id", task_id), ("benchmark", benchmark),
                                  ("robot", robot), ("answer", answer), ("clarification_id", clarification_id))),
        ) if reason]
        if not reasons:  # the content checks only make sense on fields of sane size
            reasons += [r for r in (self._task_id_problem(task_id), _benchmark_problem(benchmark)) if r]
        if reasons:
            raise RequestRejected(reasons)

    def _task_id_problem(self, task_id: str) -> str:
        if not task_id:
            return ""
        name = _TASK_NAME.fullmatch(task_id)
        if name and not task_id.endswith(".bddl"):
            return _benchmark_problem(name.group("bench") or "", "task_id prefix")
        if "\x00" in task_id or not task_id.endswith(".bddl"):
            return f"task_id {_preview(task_id)} is neither an activity name ([BENCH/]activity) nor a .bddl path"
        if not self.goal_file_dirs:
            return (f"task_id {_preview(task_id)} names a file; goals may name files only inside "
                    "scene.goal_file_dirs, which is empty")
        real = os.path.realpath(os.path.expanduser(task_id))
        if not any(Path(real).is_relative_to(d) for d in self.goal_file_dirs):
            return (f"task_id {_preview(task_id)} is outside scene.goal_file_dirs "
                    f"({os.pathsep.join(self.goal_file_dirs)})")
        return ""


def read_bddl_file(path: str, max_bytes: int) -> str:
    """A BDDL file's text, refusing anything but a regular file (a FIFO would block the open, a
    device never end) and files over ``max_bytes``. Raises OSError / UnicodeDecodeError /
    RequestRejected."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise RequestRejected([f"{path} is not a regular file"])
    with open(path, "rb") as fh:
        data = fh.read(max_bytes + 1)  # the file may have grown since the check
    if len(data) > max_bytes:
        raise RequestRejected([f"{path} is over limits.max_bddl_bytes ({max_bytes} bytes)"])
    return data.decode("utf-8")


def _too_big(field: str, value: str, limit: int, parameter: str) -> str:
    # n characters are at least n UTF-8 bytes: a huge input is refused without encoding it.
    size = len(value) if len(value) > limit else len(value.encode("utf-8", "replace"))
    return f"{field} is over {parameter} ({limit} bytes)" if size > limit else ""


def _benchmark_problem(benchmark: str, what: str = "benchmark") -> str:
    if benchmark and benchmark not in BENCHMARKS:
        return f"{what} {_preview(benchmark)} is not one of {', '.join(BENCHMARKS)}"
    return ""


def _preview(text: str, limit: int = 80) -> str:
    return repr(text[:limit] + ("..." if len(text) > limit else ""))
