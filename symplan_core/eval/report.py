"""Markdown report and PNG plots of a run directory; side-by-side comparison of two runs.

Plots (matplotlib, Agg backend, no display needed):

* ``commands_hist.png``: command-count histogram per embodiment with median and P90 lines;
* ``sp_vs_length.png``: Strict-Pass rate against response length (commands), episodes binned
  by their mean command count, one line per embodiment.

Per-episode traces (``traces.html``, linked from the report): every sample's plan, one line per
step, coloured by the engine's verdict on that step (green: no finding; orange: a precondition did
not hold, its effects applied anyway; red: a malformed or impossible call, skipped), then the goal
(Strict-Pass, Engine-Pass, GCR) and backend errors. Steps are the engine's own: the response is
split by :func:`~symplan_core.engine.plan_text.parse_plan` and the record's findings are matched by
step index. Everything from the model is HTML-escaped (LLM output is data).
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from symplan_core.eval.metrics import Record, is_valid, percentile

REPORT_FILE = "report.md"
TRACES_FILE = "traces.html"
TRACE_SAMPLES = 3  # samples shown per episode (the rest are counted)
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
    lines += ["", "![command counts](commands_hist.png)", "", "![SP vs length](sp_vs_length.png)", "",
              f"Per-episode traces, each step coloured by the engine's verdict: [{TRACES_FILE}]({TRACES_FILE})", ""]
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
            assert value is not None, "counts is not empty"
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


def step_trace(record: Record) -> list[dict[str, Any]]:
    """One entry per plan step of a record's response: ``step`` (1-based), ``text``, ``status``
    (``ok`` | ``error``: a precondition failed, effects applied | ``skipped``: malformed or
    impossible, not executed) and its ``findings`` (``KIND: message``)."""
    from symplan_core.engine.errors import SKIPPED_KINDS, ErrorKind
    from symplan_core.engine.plan_text import parse_plan

    skipped = {k.value for k in SKIPPED_KINDS}
    by_step: dict[int, list[dict[str, Any]]] = {}
    for finding in record.get("errors") or []:
        by_step.setdefault(int(finding.get("step", -1)), []).append(finding)
    steps = []
    for item in parse_plan(record.get("response") or "").items:
        found = by_step.get(item.step, [])
        kinds = {f.get("kind") for f in found}
        status = "skipped" if kinds & skipped else "error" if found else "ok"
        steps.append({"step": item.step + 1, "text": item.text, "status": status,
                      "findings": [f"{f.get('kind', ErrorKind.PARSE.value)}: {f.get('message', '')}" for f in found]})
    return steps


_TRACE_CSS = """body{font-family:sans-serif;margin:1.5em;max-width:70em}
.ep{border:1px solid #ccc;border-radius:6px;margin:1em 0;padding:.5em 1em}
.ok{color:#17722c}.error{color:#b35900}.skipped{color:#b00020}.none{color:#666}
.steps{font-family:monospace;margin:.3em 0 .3em 1em;padding:0;list-style:none}
.steps li{margin:.15em 0}.mark{display:inline-block;width:1.2em;height:.8em;margin-right:.5em;border-radius:2px}
.mark.ok{background:#2e9b48}.mark.error{background:#f08c00}.mark.skipped{background:#d32f2f}
.why{color:#555;font-family:sans-serif;font-size:90%;margin-left:2.2em}
table{border-collapse:collapse}td,th{padding:.1em .6em;border-bottom:1px solid #eee;text-align:left}"""


def _outcome(record: Record) -> tuple[str, str]:
    verdict = record.get("verdict") or {}
    if record.get("backend_error") is not None:
        return "none", "backend error"
    if verdict.get("strict_pass"):
        return "ok", "strict pass"
    if verdict.get("engine_pass"):
        return "error", f"engine pass, goal {100 * verdict.get('gcr', 0):.0f}%"
    return "skipped", f"fail, goal {100 * verdict.get('gcr', 0):.0f}%"


def traces_html(records: Sequence[Record], title: str = "Per-episode traces") -> str:
    """The trace view of a run's records (module docstring) as one self-contained HTML page."""
    esc = html.escape
    episodes: dict[str, list[Record]] = {}
    for record in records:
        episodes.setdefault(str(record.get("episode")), []).append(record)
    index = ["<table><tr><th>episode</th><th>robot</th><th>samples</th><th>outcome (first sample)</th></tr>"]
    blocks = []
    for n, (episode, group) in enumerate(sorted(episodes.items())):
        group.sort(key=lambda r: r.get("sample", 0))
        cls, text = _outcome(group[0])
        passed = sum(bool((r.get("verdict") or {}).get("strict_pass")) for r in group)
        index.append(f'<tr><td><a href="#e{n}">{esc(episode)}</a></td><td>{esc(str(group[0].get("robot", "")))}</td>'
                     f'<td>{passed}/{len(group)} strict pass</td><td class="{cls}">{esc(text)}</td></tr>')
        body = [f'<div class="ep" id="e{n}"><h3>{esc(episode)}</h3>']
        for record in group[:TRACE_SAMPLES]:
            cls, text = _outcome(record)
            body.append(f'<p>sample {esc(str(record.get("sample", 0)))}, variant {esc(str(record.get("variant", "")))}: '
                        f'<b class="{cls}">{esc(text)}</b></p>')
            if record.get("backend_error") is not None:
                body.append(f'<p class="none">{esc(str(record["backend_error"]))}</p>')
                continue
            steps = step_trace(record)
            body.append('<ol class="steps">')
            for step in steps:
                why = "".join(f'<div class="why">{esc(f)}</div>' for f in step["findings"])
                body.append(f'<li class="{step["status"]}"><span class="mark {step["status"]}"></span>'
                            f'{step["step"]:>3}. {esc(step["text"])}{why}</li>')
            if not steps:
                body.append('<li class="none">(no plan steps in the response)</li>')
            body.append("</ol>")
            repair = record.get("repair") or {}
            if repair:
                at = repair.get("strict_pass_at_round")
                body.append(f'<p>repair: {"strict pass at round " + esc(str(at)) if at is not None else "no round passed"}'
                            f'{", reference fallback passed" if repair.get("fallback_strict_pass") else ""}</p>')
        if len(group) > TRACE_SAMPLES:
            body.append(f"<p>... {len(group) - TRACE_SAMPLES} more samples in samples.jsonl</p>")
        body.append("</div>")
        blocks.append("\n".join(body))
    index.append("</table>")
    legend = ('<p><span class="mark ok"></span>no finding <span class="mark error"></span>precondition failed '
              '(effects applied) <span class="mark skipped"></span>malformed or impossible (skipped)</p>')
    return (f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{esc(title)}</title>"
            f"<style>{_TRACE_CSS}</style></head><body><h1>{esc(title)}</h1>{legend}\n" + "\n".join(index)
            + "\n" + "\n".join(blocks) + "\n</body></html>\n")


def write_report(out: Path, records: Sequence[Record], summary: dict[str, Any]) -> Path:
    plot(records, out)
    (out / TRACES_FILE).write_text(traces_html(records, f"Per-episode traces: {out.name}"), encoding="utf-8")
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
