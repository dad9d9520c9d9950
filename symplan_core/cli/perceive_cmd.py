"""``symplan perceive``: camera frames + instruction -> a verified BDDL task (``docs/perception.md``).

* ``symplan perceive --images DIR | --video FILE [--depth DIR] [--camera-info FILE] | --rawlog FILE
  --instruction TEXT --detector SPEC --out task.bddl [--overlay out.png] [--json]``
* ``symplan perceive eval --benchmark b1k --split test [--noise default|none|SCALE] [--sweep 0,1,2]``
* ``symplan perceive render TASK --out DIR``: a rendered scene on disk (frames, depth, camera info,
  marker map) to try the first command on.

Register with ``perceive_cmd.register(app)`` in ``symplan_core/cli/main.py``. OpenCV and the
pipeline are imported inside the commands, so ``symplan --help`` does not need the vision extra.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from symplan_core.cli.common import Benchmark, console, fail, print_json

if TYPE_CHECKING:
    from symplan_core.perception.frames import Frame
    from symplan_core.perception.rawlog import Registration

REGISTRATIONS: dict[str, Registration] = {"driver": "driver", "reproject": "reproject"}

perceive_app = typer.Typer(
    help="Camera frames + instruction -> a verified BDDL task (fiducial, grounding-dino, yolo-world or ssd-oid detectors). "
         "Writes task.bddl and task.provenance.json only when every check passes. Exit status: 0 accepted and "
         "written, 1 rejected (verdicts and reasons printed, nothing written), 2 bad input (one error line), "
         "3 a clarification question (candidate goals disagree; printed, nothing written; answer with --answer). "
         "See docs/perception.md.",
    invoke_without_command=True, no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(perceive_app, name="perceive")


def _noise(text: str):
    from symplan_core.perception.rigs.synthetic import NoiseConfig

    if text == "none":
        return NoiseConfig()
    if text == "default":
        return NoiseConfig.default()
    try:
        scale = float(text)
    except ValueError:
        fail(f"--noise must be none, default or a scale of the default (e.g. 1.5), not {text!r}")
    if scale < 0:
        fail("--noise scale must be >= 0")
    return NoiseConfig.default().scaled(scale)


#: One option, both commands: the temperature of the sampled draws (--samples, --agreement).
SAMPLE_TEMPERATURE = typer.Option(None, "--sample-temperature", min=0.01, max=2.0,
                                  help="Temperature of the --samples and --agreement draws (default 0.8).")


def _config(path: Path | None, **overrides):
    from pydantic import ValidationError

    from symplan_core.perception.pipeline import PerceptionConfig

    data: dict = {}
    if path is not None:
        import yaml

        try:
            data = yaml.safe_load(path.read_text()) or {}
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
            fail(f"cannot read config {path}: {exc}")
        if not isinstance(data, dict):
            fail(f"{path}: a perception config is a mapping")
    # A flag left out keeps the file's value; a nested flag (--max-key-frames) keeps its section's others.
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(data.get(key), dict):
            value = {**data[key], **{k: v for k, v in value.items() if v is not None}}
        elif isinstance(value, dict):
            value = {k: v for k, v in value.items() if v is not None} or None
        if value is not None:
            data[key] = value
    try:
        return PerceptionConfig.model_validate(data)
    except ValidationError as exc:
        fail("; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()))


@perceive_app.callback()
def perceive(
    ctx: typer.Context,
    images: Path | None = typer.Option(None, "--images", help="Directory of frames (PNG/JPEG/...), name order."),
    video: Path | None = typer.Option(None, "--video", help="A video file (instead of --images)."),
    rawlog: Path | None = typer.Option(None, "--rawlog", help="An MRPT RGB-D rawlog (instead of --images; carries "
                                                             "its own depth and intrinsics)."),
    registration: str = typer.Option("driver", "--registration", help="--rawlog depth: driver (as stored, e.g. "
                                     "OpenNI2-registered) or reproject (depth camera -> colour camera)."),
    depth: Path | None = typer.Option(None, "--depth", help="Depth images matched by file stem (video: frame number)."),
    depth_scale: float = typer.Option(0.001, "--depth-scale", help="Metres per unit of 16-bit depth (mm: 0.001)."),
    camera_info: Path | None = typer.Option(None, "--camera-info", help="Intrinsics YAML (ROS camera_info or fx/fy/cx/cy)."),
    instruction: str | None = typer.Option(None, "--instruction", help="What the robot is asked to do."),
    detector: str = typer.Option("fiducial", "--detector", help="fiducial[:MAP.yaml], grounding-dino:PATH, yolo-world:PATH, "
                                                                "ssd-oid[:PATH]."),
    out: Path | None = typer.Option(None, "--out", help="Where to write task.bddl (+ task.provenance.json)."),
    overlay: Path | None = typer.Option(None, "--overlay", help="Also draw the boxes, labels and relations on the key "
                                                               "frame into this PNG (written for rejected drafts too)."),
    scene: Path | None = typer.Option(None, "--scene", help="Also write the perceived scene (detected objects, observed "
                                                           "facts, empty goal: not a task) to this .bddl, accepted or not."),
    goal: str | None = typer.Option(None, "--goal", help="Goal drafting: retrieval, llm or hybrid (default: the "
                                                         "config's, else retrieval)."),
    llm: str | None = typer.Option(None, "--llm", help="Backend spec drafting the goal with --goal llm."),
    judge: str | None = typer.Option(None, "--judge", help="Backend spec of the optional LLM-judge axis."),
    confirm: str | None = typer.Option(None, "--confirm", help="never or novel: an accepted goal the LLM wrote that "
                                                               "no retrieved activity's goal matches is asked back "
                                                               "(exit 3; --answer yes does it). Default: the "
                                                               "config's, else never."),
    redrafts: int | None = typer.Option(None, "--redrafts", min=0, max=3, help="--goal llm: redraft a goal the verifier "
                                                                     "refuses, with its reasons, this many times (default: the config's, else 0)."),
    samples: int | None = typer.Option(None, "--samples", min=0, max=8, help="--goal llm: when the verifier refuses the "
                                                                   "greedy goal, sample up to this many more and "
                                                                   "keep the first it accepts (default: the "
                                                                   "config's, else 0)."),
    sample_temperature: float | None = SAMPLE_TEMPERATURE,
    agreement: int | None = typer.Option(None, "--agreement", min=0, max=8, help="--goal llm: hold an accepted goal against "
                                                                       "this many sampled ones; when none of the "
                                                                       "accepted samples supports it, ask which "
                                                                       "was meant (exit 3; default: the "
                                                                       "config's, else 0)."),
    max_tokens: int | None = typer.Option(None, "--max-tokens", min=1, help="--goal llm: the most tokens of one "
                                                                           "goal draft (default: the config's, "
                                                                           "320); a reply cut there has no goal "
                                                                           "unless it was looping."),
    robot: str | None = typer.Option(None, "--robot", help="single or dual: the goal axis plans for it (default: "
                                                           "the config's, else single)."),
    config_file: Path | None = typer.Option(None, "--config", help="PerceptionConfig YAML (thresholds, aliases, pose); "
                                                                   "a flag given on the command line wins over it."),
    max_key_frames: int | None = typer.Option(None, "--max-key-frames", min=1, help="Key frames kept from the stream "
                                                                                   "(default: the config's, else 8)."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    answer: str | None = typer.Option(None, "--answer", help="The answer to the clarification question an earlier "
                                                             "run asked: a candidate's number or activity."),
) -> None:
    """Perceive a task from frames; writes the BDDL and its provenance only when every check passes.

    Exit status: 0 accepted and written, 1 rejected (reasons printed, nothing written), 2 bad input,
    3 a clarification question (printed with its candidates; nothing written; rerun with --answer).
    """
    if ctx.invoked_subcommand is not None:
        return
    if sum(x is not None for x in (images, video, rawlog)) != 1:
        fail("give exactly one of --images DIR or --video FILE (or --rawlog FILE)")
    registration_mode = REGISTRATIONS.get(registration)
    if registration_mode is None:
        fail(f"--registration must be driver or reproject, not {registration!r}")
    if not instruction:
        fail("--instruction is required")
    if out is None:
        fail("--out is required")
    if camera_info is None and rawlog is None:
        fail("--camera-info is required (the intrinsics the depth is lifted with)")
    if overlay is not None and overlay.suffix.lower() != ".png":
        fail(f"--overlay is a .png file, not {overlay}")
    from symplan_core.perception import (
        CameraIntrinsics,
        KeyFrameSelector,
        PerceptionError,
        frames_from_dir,
        frames_from_video,
        make_detector,
        write_outputs,
    )
    from symplan_core.perception import perceive as run_perceive

    config = _config(config_file, goal=goal, llm=llm, judge=judge, robot=robot, confirm=confirm,
                     llm_redrafts=redrafts, llm_samples=samples, llm_agreement=agreement,
                     llm_sample_temperature=sample_temperature, llm_max_tokens=max_tokens,
                     keyframes={"max_frames": max_key_frames})
    stream: Iterable[Frame]
    try:
        if rawlog is not None:
            from symplan_core.perception.rawlog import frames_from_rawlog

            stream, intrinsics = frames_from_rawlog(rawlog, registration_mode)
            if camera_info is not None:
                intrinsics = CameraIntrinsics.load(camera_info)
        else:
            assert camera_info is not None, "checked above: needed without --rawlog"
            intrinsics = CameraIntrinsics.load(camera_info)
            if images is not None:
                stream = frames_from_dir(images, depth, depth_scale)
            else:
                assert video is not None, "checked above: exactly one of --images, --video, --rawlog"
                stream = frames_from_video(video, depth, depth_scale)
        frames = KeyFrameSelector(config.keyframes).extend(stream)
        chosen = make_detector(detector)
        try:
            result = run_perceive(frames, instruction, chosen, intrinsics, config)
        finally:
            chosen.close()
        if answer is not None:
            if not result.needs_clarification:
                fail("--answer was given, but nothing was asked: the instruction needs no clarification")
            result = result.choose(answer)
        drawn = scene_written = None
        if scene is not None:
            from symplan_core.perception.scene_file import write_scene

            scene_written = write_scene(result.provenance, scene)
        if overlay is not None:
            from symplan_core.perception.overlay import write_overlay

            drawn = write_overlay(frames, result.provenance, overlay, result.accepted)
        written = write_outputs(result, out) if result.accepted else None
    except PerceptionError as exc:
        fail(str(exc))
    if as_json:
        print_json({**result.to_json(), "written": [str(p) for p in written] if written else None,
                    "overlay": str(drawn) if drawn else None,
                    "scene": str(scene_written[0]) if scene_written else None})
    else:
        _print_result(result, written)
        if drawn is not None:
            console.print(f"overlay: {drawn}", highlight=False)
        if scene_written is not None:
            path, problem = scene_written
            console.print(f"scene: {path} ({len(problem.objects)} detected objects, {len(problem.init)} observed facts; "
                          "not a task)", highlight=False)
    if result.needs_clarification:
        raise typer.Exit(3)
    if not result.accepted:
        raise typer.Exit(1)


def _print_result(result, written) -> None:
    if result.needs_clarification:
        ask = result.clarification
        console.print(f"[bold yellow]question[/]  {ask.question}", highlight=False)
        for cand in ask.candidates:
            console.print(f"  ({cand.number}) {cand.activity}: {cand.goal_text}", highlight=False, markup=False)
        console.print("nothing written; answer with --answer N (or the activity)", highlight=False)
        return
    status = "[bold green]accepted[/]" if result.accepted else "[bold red]rejected[/]"
    goal = result.provenance.get("goal", {})
    console.print(f"{status}  (goal from {goal.get('activity') or goal.get('source')}; "
                  f"{len(result.provenance.get('objects', {}))} objects, {len(result.provenance.get('facts', []))} facts)",
                  highlight=False)
    for verdict in result.verdicts:
        mark = {True: "pass", False: "FAIL", None: "skip"}[verdict.passed]
        console.print(f"  {verdict.axis:8s} {mark}", highlight=False)
        for reason in verdict.reasons:
            console.print(f"           - {reason}", highlight=False, markup=False)
    for note in result.provenance.get("notes", []):
        console.print(f"  note: {note}", highlight=False, markup=False)
    for drop in result.provenance.get("dropped", []):
        console.print(f"  dropped {drop['label']!r} (frames {drop['frames']}): {drop['reason']}", highlight=False,
                      markup=False)
    if written:
        console.print(f"wrote {written[0]} and {written[1]}", highlight=False)
    else:
        console.print("nothing written", highlight=False)


@perceive_app.command("eval")
def evaluate(
    benchmark: Benchmark = typer.Option(Benchmark.b1k, "--benchmark", help="b100 or b1k."),
    split: str = typer.Option("test", "--split", help="test (B-1K: the committed held-out split) or all."),
    detector: str = typer.Option("fiducial", "--detector", help="Rendered scenes carry markers: fiducial only."),
    noise: str = typer.Option("none", "--noise", help="none, default, or a scale of the default noise."),
    sweep: str | None = typer.Option(None, "--sweep", help="Noise scales to sweep, e.g. 0,0.5,1,2,3 (plots it)."),
    frames: int = typer.Option(8, "--frames", min=1, help="Key frames rendered per scene."),
    seed: int = typer.Option(0, "--seed"),
    instruction: str = typer.Option("goal", "--instruction", help="goal (the goal in English) or name (activity name)."),
    goal: str = typer.Option("retrieval", "--goal", help="retrieval or llm (older name of --drafter)."),
    llm: str | None = typer.Option(None, "--llm", help="Backend spec for --goal llm (older name of --planner)."),
    drafter: str | None = typer.Option(
        None, "--drafter", help="Who drafts the goal: retrieval, llm (the LLM under the scene's goal grammar, retrieved "
                                "goals as examples) or hybrid (retrieval when its score is clear, else the LLM; a "
                                "question when both pass with different goals)."),
    planner: str | None = typer.Option(None, "--planner", help="Backend spec of the LLM drafter (--drafter llm|hybrid), "
                                                               "e.g. openai:http://127.0.0.1:8742/v1."),
    robot: str = typer.Option("single", "--robot"),
    confirm: str = typer.Option("never", "--confirm", help="novel: an accepted goal the LLM wrote that no retrieved "
                                                           "activity's goal matches is asked back as a yes/no "
                                                           "question (counted as asked; the simulated person says "
                                                           "yes when its plan reaches the released goal)."),
    redrafts: int = typer.Option(0, "--redrafts", min=0, max=3, help="--drafter llm|hybrid: redraft a goal the "
                                                                     "verifier refuses, with its reasons, this many "
                                                                     "times (0: the first draft is final)."),
    samples: int = typer.Option(0, "--samples", min=0, max=8, help="--drafter llm|hybrid: when the verifier "
                                                                   "refuses the greedy goal, sample up to this many "
                                                                   "more (seeds 1..N) and keep the first it accepts."),
    sample_temperature: float | None = SAMPLE_TEMPERATURE,
    agreement: int = typer.Option(0, "--agreement", min=0, max=8, help="--drafter llm|hybrid: hold an accepted LLM "
                                                                       "goal against this many sampled ones (seeds "
                                                                       "1..N); when none of the accepted samples "
                                                                       "supports it, a question with the distinct "
                                                                       "goals (counted as asked)."),
    max_tokens: int | None = typer.Option(None, "--max-tokens", min=1, help="--drafter llm|hybrid: the most tokens "
                                                                           "of one goal draft (default 320); a reply "
                                                                           "cut there has no goal unless it was "
                                                                           "looping."),
    examples: int | None = typer.Option(None, "--examples", min=0, max=10, help="--drafter llm|hybrid: retrieved "
                                                                            "activities' goals shown to the LLM "
                                                                            "(default 3; --holdout leaves the "
                                                                            "evaluated one out)."),
    ask_unanswered: bool = typer.Option(False, "--ask-unanswered/--no-ask-unanswered",
                                        help="A retrieved goal that never answers a state word of the instruction, "
                                             "or puts nothing where it says ('at the mailbox'), is asked back "
                                             "for a yes (counted as asked) instead of accepted."),
    mention_objects: bool = typer.Option(True, "--mention-objects/--no-mention-objects",
                                         help="--drafter llm|hybrid: a draft that leaves out an object the "
                                              "instruction names (one the verifier requires) is decoded again from "
                                              "what it said, under a grammar that goes on with a mention of it."),
    answer_states: bool = typer.Option(False, "--answer-states/--no-answer-states",
                                       help="--drafter llm|hybrid: a draft that answers none of the literals a state "
                                            "word of the instruction asks for ('bake' -> cooked) is decoded again "
                                            "from what it said, under a grammar that goes on with one of them "
                                            "(off by default: measured, it added wrong goals)."),
    answer_placements: bool = typer.Option(True, "--answer-placements/--no-answer-placements",
                                           help="--drafter llm|hybrid: a draft that does not put a thing the "
                                                "instruction moves where it says ('throw the rod in the boat') is "
                                                "decoded again from what it said, under a grammar that goes on with "
                                                "that placement."),
    instructions: Path | None = typer.Option(
        None, "--instructions", help="JSONL of {activity, instruction, style?}: people's instructions instead of "
                                     "ones made from the task; the report is per style."),
    holdout: bool = typer.Option(False, "--holdout", help="Leave-one-out: the evaluated activity is removed from "
                                                          "the retrieval corpus and any example pool (novel task)."),
    limit: int | None = typer.Option(None, "--limit", min=1, help="First N tasks (with --instructions: lines) only."),
    out: Path | None = typer.Option(None, "--out", help="Directory for summary.json, tasks.jsonl, report.md (+ plot)."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
) -> None:
    """Render each task's :init, perceive it, compare with the released BDDL (docs/perception.md)."""
    from symplan_core.eval.splits import split_tasks
    from symplan_core.perception.rigs.evaluation import EvalOptions, markdown, plot_sweep
    from symplan_core.perception.rigs.evaluation import evaluate as run_eval

    if detector.split(":", 1)[0] != "fiducial":
        fail("perceive eval renders marker-tagged scenes: only the fiducial detector reads them")
    if instruction not in ("goal", "name"):
        fail("--instruction must be goal or name")
    try:
        tasks = split_tasks(benchmark.value, split)
    except ValueError as exc:
        fail(str(exc))
    tasks = tasks[:limit] if limit else tasks
    if drafter is not None and drafter not in ("retrieval", "llm", "hybrid"):
        fail("--drafter must be retrieval, llm or hybrid")
    config = _config(None, goal=drafter or goal, llm=planner or llm, robot=robot, benchmarks=[benchmark.value],
                     confirm=confirm, llm_redrafts=redrafts, llm_samples=samples, llm_agreement=agreement,
                     llm_sample_temperature=sample_temperature, llm_max_tokens=max_tokens,
                     ask_unanswered=ask_unanswered, llm_mention_objects=mention_objects,
                     llm_answer_states=answer_states, llm_answer_placements=answer_placements,
                     llm_examples=examples)
    if config.goal != "retrieval" and not config.llm:
        fail(f"--drafter {config.goal} needs --planner SPEC (the LLM backend)")
    if instructions is not None:
        if sweep:
            fail("--sweep and --instructions do not combine")
        _eval_instructions(instructions, benchmark.value, limit, out, as_json,
                           EvalOptions(benchmark=benchmark.value, seed=seed, frames=frames, noise=_noise(noise),
                                       holdout=holdout, perception=config))
        return
    levels = [float(x) for x in sweep.split(",")] if sweep else None
    runs = []
    run_levels: list[float | None] = list(levels) if levels else [None]
    for level in run_levels:
        noise_config = _noise(noise) if level is None else _noise(str(level))
        options = EvalOptions(benchmark=benchmark.value, seed=seed, frames=frames, noise=noise_config,
                              instruction=instruction, holdout=holdout, perception=config)
        reports, summary = run_eval(tasks, options)
        summary["noise"] = noise_config.model_dump()
        summary["noise_scale"] = level if level is not None else noise
        runs.append((level, reports, summary))
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        last_reports, last_summary = runs[-1][1], runs[-1][2]
        (out / "summary.json").write_text(json.dumps([r[2] for r in runs] if levels else last_summary, indent=2) + "\n")
        with (out / "tasks.jsonl").open("w") as fh:
            for level, reports, _summary in runs:
                for report in reports:
                    fh.write(json.dumps({"noise_scale": level, **report.to_json()}) + "\n")
        (out / "report.md").write_text("\n".join(markdown(s, r if not levels else None) for _l, r, s in runs))
        if levels:
            plot_sweep(levels, [r[2] for r in runs], out / "noise_sweep.png")
        del last_reports, last_summary
    if as_json:
        print_json([r[2] for r in runs] if levels else runs[0][2])
        return
    for level, reports, summary in runs:
        if level is not None:
            typer.echo(f"\n## noise scale {level}\n")
        typer.echo(markdown(summary, None if levels else reports))


def _eval_instructions(path: Path, benchmark: str, limit: int | None, out: Path | None, as_json: bool,
                       options) -> None:
    from symplan_core.perception.rigs.evaluation import (
        HoldoutLeakError,
        InstructionFileError,
        evaluate_instructions,
        load_instructions,
        markdown,
        style_markdown,
    )

    try:
        given = load_instructions(path, benchmark)
    except InstructionFileError as exc:
        fail(str(exc))
    given = given[:limit] if limit else given
    backend = _drafter_backend(options.perception)
    try:
        reports, summary = evaluate_instructions(given, options, goal_backend=backend)
    except HoldoutLeakError as exc:
        fail(str(exc))
    finally:
        if backend is not None:
            backend.close()
    summary["drafter"] = options.perception.goal
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
        with (out / "tasks.jsonl").open("w") as fh:
            for report in reports:
                fh.write(json.dumps(report.to_json()) + "\n")
        (out / "report.md").write_text(style_markdown(summary) + "\n" + markdown(summary, reports))
    if as_json:
        print_json(summary)
        return
    typer.echo(style_markdown(summary))


def _drafter_backend(config):
    """One LLM backend for the whole evaluation (a loaded model is reused), or None for retrieval."""
    if config.goal == "retrieval" or not config.llm:
        return None
    from symplan_core.llm import BackendSpecError, BackendUnavailableError, make_backend

    try:
        return make_backend(config.llm)
    except (BackendSpecError, BackendUnavailableError) as exc:
        fail(f"LLM backend {config.llm!r}: {exc}")


@perceive_app.command("render")
def render(
    task: str = typer.Argument(..., help="Task name (activity, b1k/activity) or .bddl path."),
    out: Path = typer.Option(..., "--out", help="Directory: rgb/, depth/ (16-bit mm), camera_info.yaml, markers.yaml."),
    frames: int = typer.Option(8, "--frames", min=1),
    noise: str = typer.Option("none", "--noise", help="none, default, or a scale of the default noise."),
    seed: int = typer.Option(0, "--seed"),
    benchmark: Benchmark | None = typer.Option(None, "--benchmark"),
) -> None:
    """Render a BEHAVIOR task's :init as a marker-tagged RGB-D scene on disk (an evaluation tool)."""
    import cv2
    import numpy as np
    import yaml

    from symplan_core.perception.rigs.synthetic import render_task
    from symplan_core.tasks import DataError, load_problem

    try:
        problem = load_problem(task, benchmark.value if benchmark else None)
    except DataError as exc:
        fail(str(exc))
    scene = render_task(problem, seed)
    (out / "rgb").mkdir(parents=True, exist_ok=True)
    (out / "depth").mkdir(parents=True, exist_ok=True)
    for i, frame in enumerate(scene.frames(frames, _noise(noise))):
        assert frame.depth is not None, "a rendered frame has depth"
        cv2.imwrite(str(out / "rgb" / f"{i:06d}.png"), cv2.cvtColor(frame.rgb, cv2.COLOR_RGB2BGR))
        cv2.imwrite(str(out / "depth" / f"{i:06d}.png"), np.clip(frame.depth * 1000.0, 0, 65535).astype(np.uint16))
    k = scene.intrinsics
    (out / "camera_info.yaml").write_text(yaml.safe_dump({"width": k.width, "height": k.height,
                                                           "k": [k.fx, 0.0, k.cx, 0.0, k.fy, k.cy, 0.0, 0.0, 1.0]}))
    scene.fiducial_map.dump(out / "markers.yaml")
    (out / "truth.json").write_text(json.dumps({str(i): who for i, who in scene.truth.items()}, indent=2) + "\n")
    console.print(f"wrote {frames} frames of {problem.name} to {out} (markers.yaml, camera_info.yaml, "
                  f"truth.json: marker -> instance, for evaluation only)", highlight=False)
