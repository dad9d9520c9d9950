"""Markdown report and PNG plots of a run directory; side-by-side comparison of two runs.

Plots (matplotlib, Agg backend, no display needed):

* ``commands_hist.png``: command-count histogram per embodiment with median and P90 lines;
* ``sp_vs_length.png``: Strict-Pass rate against response length (commands), episodes binned
  by their mean command count, one line per embodiment.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from symplan_core.eval.metrics import Record, is_valid, percentile

REPORT_FILE = "report.md"
_ROWS = ("episodes", "samples", "backend_errors", "SP", "EP", "GCR", "Err", "format_ok",
         "mean_response_tokens", "mean_commands", "median_commands", "p90_commands")


def _fmt(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def summary_rows(summary: dict[str, Any]) -> list[tuple[str, str]]:
    """(metric, value) pairs in a fixed order, extras (pass@k, repair) included."""
    rows = [(name, _fmt(summary.get(name))) for name in _ROWS]
    for k, value in (summary.get("pass_at_k") or {}).items():
        rows.append((f"pass@{k}", _fmt(value)))
    for bucket, value in (summary.get("consistency") or {}).items():
        rows.append((f"{bucket}-pass tasks", _fmt(value)))
    for rounds, value in (summary.get("SP_after_round") or {}).items():
        rows.append((f"SP after {rounds} repair rounds", _fmt(value)))
    if "SP_with_fallback" in summary:
        rows.append(("SP with reference fallback", _fmt(summary["SP_with_fallback"])))
    return rows


def markdown(summary: dict[str, Any], title: str = "Evaluation") -> str:
    config = summary.get("config", {})
    robots = sorted(summary.get("by_robot", {}))
    header = "| metric | all | " + " | ".join(robots) + " |"
    source = f"dataset `{config['dataset']}`" if config.get("dataset") else f"benchmark {config.get('benchmark')}"
    lines = [f"# {title}", "",
             f"planner `{config.get('planner')}`, {source} "
             f"({config.get('split')}), variant {config.get('variant')}, samples {config.get('samples')}, "
             f"repair {config.get('repair')}", "",
             header, "|" + "---|" * (2 + len(robots))]
    by_robot = {r: dict(summary_rows(summary["by_robot"][r])) for r in robots}
    for name, value in summary_rows(summary):
        lines.append(f"| {name} | {value} | " + " | ".join(by_robot[r].get(name, "–") for r in robots) + " |")
    lines += ["", "![command counts](commands_hist.png)", "", "![SP vs length](sp_vs_length.png)", ""]
    return "\n".join(lines)


def _episode_points(records: Sequence[Record]) -> dict[str, list[tuple[float, float]]]:
    """Per robot: (mean commands, SP rate) of each episode over its valid samples."""
    grouped: dict[tuple[str, str], list[Record]] = {}
    for record in records:
        if is_valid(record):
            grouped.setdefault((record["robot"], record["episode"]), []).append(record)
    points: dict[str, list[tuple[float, float]]] = {}
    for (robot, _), rs in grouped.items():
        mean_commands = sum(r["verdict"]["commands"] for r in rs) / len(rs)
        sp = sum(r["verdict"]["strict_pass"] for r in rs) / len(rs)
        points.setdefault(robot, []).append((mean_commands, sp))
    return points


def plot(records: Sequence[Record], out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    fig, ax = plt.subplots(figsize=(7, 4))
    robots = sorted({r["robot"] for r in records})
    for robot in robots:
        counts = [r["verdict"]["commands"] for r in records if r["robot"] == robot and is_valid(r)]
        if not counts:
            continue
        ax.hist(counts, bins=30, alpha=0.5, label=robot)
        for q, style in ((50, "-"), (90, "--")):
            value = percentile(counts, q)
            ax.axvline(value, linestyle=style, color="k" if robot == robots[0] else "gray",
                       label=f"{robot} {'median' if q == 50 else 'P90'} = {value:g}")
    ax.set_xlabel("commands per response")
    ax.set_ylabel("samples")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7)
    fig.tight_layout()
    written.append(out / "commands_hist.png")
    fig.savefig(written[-1], dpi=100)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(7, 4))
    for robot, points in sorted(_episode_points(records).items()):
        points.sort()
        bins = max(1, min(8, len(points) // 5))
        xs, ys = [], []
        for b in range(bins):
            part = points[b * len(points) // bins:(b + 1) * len(points) // bins]
            if part:
                xs.append(sum(p[0] for p in part) / len(part))
                ys.append(100.0 * sum(p[1] for p in part) / len(part))
        ax.plot(xs, ys, marker="o", label=robot)
    ax.set_xlabel("mean commands (episodes binned by length)")
    ax.set_ylabel("Strict-Pass %")
    ax.set_ylim(-5, 105)
    if ax.get_legend_handles_labels()[0]:
        ax.legend()
    fig.tight_layout()
    written.append(out / "sp_vs_length.png")
    fig.savefig(written[-1], dpi=100)
    plt.close(fig)
    return written


def write_report(out: Path, records: Sequence[Record], summary: dict[str, Any]) -> Path:
    plot(records, out)
    path = out / REPORT_FILE
    path.write_text(markdown(summary, title=f"Evaluation: {out.name}"))
    return path


def load_summary(run: Path) -> dict[str, Any]:
    path = run / "summary.json" if run.is_dir() else run
    return json.loads(path.read_text())


def compare_rows(a: dict[str, Any], b: dict[str, Any]) -> list[tuple[str, str, str]]:
    """Metric rows of two summaries side by side (overall, then per robot)."""
    rows_a, rows_b = dict(summary_rows(a)), dict(summary_rows(b))
    names = list(dict.fromkeys([*rows_a, *rows_b]))
    rows = [(name, rows_a.get(name, "–"), rows_b.get(name, "–")) for name in names]
    for robot in sorted(set(a.get("by_robot", {})) | set(b.get("by_robot", {}))):
        ra = dict(summary_rows(a.get("by_robot", {}).get(robot, {})))
        rb = dict(summary_rows(b.get("by_robot", {}).get(robot, {})))
        rows += [(f"{robot}: {name}", ra.get(name, "–"), rb.get(name, "–")) for name in ("SP", "EP", "GCR", "Err")]
    return rows
