"""``symplan replay BAG --instruction ... --out DIR``: a recorded ROS 2 bag -> verified BDDL (+ plan).

Exit codes: 0 the scene was accepted (and, with ``--plan``, a plan strict-passed); 1 the draft or
the plan was rejected (reasons printed, nothing written for a rejected draft); 2 bad input (bag,
topics, options), reported as one line.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from symplan_core.cli.common import console, fail, print_json
from symplan_core.cli.verify_cmd import Robot


def replay_command(
    bag: Path = typer.Argument(..., help="rosbag2 directory (sqlite3 or MCAP), or the .db3/.mcap file in one."),
    instruction: str = typer.Option(..., "--instruction", help="The task in words (drives the object prior and goal)."),
    out: Path = typer.Option(..., "--out", help="Output directory: task.bddl, task.provenance.json, report.json "
                                                "(+ plan.txt, plan.json). Written atomically."),
    rgb: str | None = typer.Option(None, "--rgb", help="Colour topic (sensor_msgs/Image or CompressedImage); "
                                                       "default: the only non-depth image topic."),
    depth: str | None = typer.Option(None, "--depth", help="Depth topic (16UC1 mm or 32FC1 m); default: the only "
                                                           "image topic named *depth*."),
    camera_info: str | None = typer.Option(None, "--camera-info", help="sensor_msgs/CameraInfo topic; default: the only one."),
    detector: str = typer.Option("fiducial", "--detector", help="Detector spec: fiducial[:MAP.yaml], "
                                                                "grounding-dino:PATH, yolo-world:PATH, ssd-oid[:PATH]."),
    plan: str | None = typer.Option(None, "--plan", help="Planner spec (reference, openai:URL, transformers:PATH): "
                                                         "also plan and verify."),
    robot: Robot = typer.Option(Robot.single, help="Embodiment the scene and plan are checked for."),
    tolerance: float = typer.Option(0.05, "--sync-tolerance", min=0.0, help="Max colour/depth stamp skew (s)."),
    force: bool = typer.Option(False, "--force", help="Replace an existing output directory."),
    overlay: Path | None = typer.Option(None, "--overlay", help="Directory for one PNG per key frame with the boxes, "
                                                               "labels and relations drawn (also for a rejected draft)."),
    json_out: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Replay a recorded camera bag through perception into a verified BDDL task (no ROS install needed)."""
    try:
        from symplan_core.perception import PerceptionError
        from symplan_core.rosio.bags import BagError
        from symplan_core.runtime.replay import ReplayConfig, replay
    except ImportError as exc:
        fail(f"replay needs the vision and bags extras: pip install 'symplan-core[vision,bags]' ({exc})")
    from symplan_core.llm import BackendSpecError, BackendUnavailableError

    config = ReplayConfig(bag=bag, instruction=instruction, out=out, rgb_topic=rgb, depth_topic=depth,
                          info_topic=camera_info, detector=detector, plan=plan, robot=robot.value,
                          sync_tolerance_s=tolerance, force=force, overlay=overlay)
    show = not json_out and sys.stderr.isatty()
    try:
        if show:
            from rich.progress import Progress

            with Progress(console=console, transient=True) as bar:
                job = bar.add_task(f"reading {bag.name}", total=None)
                outcome = replay(config, lambda done, total: bar.update(job, completed=done, total=total))
        else:
            outcome = replay(config)
    except (BagError, PerceptionError, FileExistsError, BackendSpecError, BackendUnavailableError) as exc:
        fail(f"replay: {exc}")
    except OSError as exc:
        fail(f"replay: cannot write {out}: {exc.strerror or exc}")
    if json_out:
        print_json({"ok": outcome.ok, "out": str(outcome.out) if outcome.out else None,
                    "reasons": outcome.reasons, **outcome.report})
    else:
        report = outcome.report
        stream = report["stream"]
        console.print(f"{bag}: {stream['messages']} messages, {stream['frames']} synchronised frames "
                      f"({report['frames_per_s']} frames/s), {len(report['key_frames'])} key frames", highlight=False)
        for verdict in report["verdicts"]:
            mark = "ok" if verdict["passed"] else "skipped" if verdict["passed"] is None else "REJECTED"
            console.print(f"  {verdict['axis']}: {mark}" + "".join(f"\n    - {r}" for r in verdict["reasons"]),
                          highlight=False)
        if "plan" in report:
            console.print(f"  plan ({report['plan']['planner']}): "
                          f"{'strict pass' if report['plan']['strict_pass'] else 'REJECTED'}", highlight=False)
        if report.get("overlays"):
            console.print(f"overlays: {len(report['overlays'])} PNG in {overlay}/", highlight=False)
        if outcome.out is not None:
            console.print(f"wrote {outcome.out}/ ({', '.join(report['outputs'])})", highlight=False)
        for reason in outcome.reasons:
            console.print(f"[bold red]rejected:[/] {reason}", highlight=False)
    if not outcome.ok:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add ``replay`` to the ``symplan`` app."""
    app.command("replay")(replay_command)
