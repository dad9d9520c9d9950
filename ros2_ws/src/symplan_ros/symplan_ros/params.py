"""Parameters of the planner node: one table drives declaration, descriptors and the config.

Every parameter is declared with a ParameterDescriptor (description, range, read-only) so
`ros2 param describe` explains it; values come from config/planner.yaml via --params-file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

FALLBACK_POLICIES = ("none", "reference")
SCENE_SOURCES = ("bddl", "camera")
GOAL_SOURCES = ("retrieval", "llm")


@dataclass(frozen=True)
class ParamSpec:
    name: str
    attr: str  # the PlannerConfig field it fills; its default is the parameter's default
    description: str
    int_range: tuple[int, int] | None = None
    float_range: tuple[float, float] | None = None
    choices: tuple[str, ...] = ()

    @property
    def default(self) -> Any:
        return PlannerConfig.__dataclass_fields__[self.attr].default


@dataclass(frozen=True)
class PlannerConfig:
    robot: str = "single"
    backend: str = "reference"
    prompt_variant: str = "guided"
    repair_rounds: int = 2
    max_tokens: int = 2048
    fallback: str = "reference"
    allow_unknown_affordances: bool = False
    replan_limit: int = 3
    skill_timeout_s: float = 30.0
    scene_source: str = "bddl"
    scene_task_id: str = ""
    scene_benchmark: str = ""
    scene_bddl_file: str = ""
    goal_file_dirs: str = ""
    max_bddl_bytes: int = 65536
    max_plan_bytes: int = 65536
    max_text_bytes: int = 4096
    rgb_topic: str = "camera/color/image_raw"
    depth_topic: str = ""
    info_topic: str = ""
    sync_tolerance_s: float = 0.05
    stale_after_s: float = 2.0
    buffer_frames: int = 12
    max_image_bytes: int = 33554432
    max_rate_hz: float = 10.0
    min_frames: int = 3
    window_s: float = 2.0
    wait_s: float = 5.0
    keyframe_capacity: int = 8
    keyframe_threshold: float = 0.02
    detector: str = "fiducial"
    perception_goal: str = "retrieval"
    perception_llm: str = ""
    perception_judge: str = ""
    diagnostics_period_s: float = 1.0

    @classmethod
    def from_values(cls, values: dict[str, Any]) -> PlannerConfig:
        """Build from {param name: value}; raises ValueError on a value outside its spec."""
        for spec in PARAMS:
            if spec.name in values and spec.choices and values[spec.name] not in spec.choices:
                raise ValueError(f"{spec.name}={values[spec.name]!r}: choose from {spec.choices}")
        return cls(**{spec.attr: values[spec.name] for spec in PARAMS if spec.name in values})


PARAMS: tuple[ParamSpec, ...] = (
    ParamSpec("robot", "robot", "robot type the engine checks actions against (e.g. single, dual)"),
    ParamSpec("planner.backend", "backend", "planner backend spec, e.g. reference or openai:http://host:8000/v1?model=NAME"),
    ParamSpec("planner.prompt_variant", "prompt_variant", "prompt variant passed to build_prompt"),
    ParamSpec("planner.repair_rounds", "repair_rounds", "extra LLM calls that feed engine errors back",
              int_range=(0, 10)),
    ParamSpec("planner.max_tokens", "max_tokens", "most tokens one LLM answer may have (bounds a planning call's time)", int_range=(1, 32768)),
    ParamSpec("planner.fallback", "fallback", "what to do when the LLM gives no valid plan: none (fail) or reference (symbolic planner, still verified)",
              choices=FALLBACK_POLICIES),
    ParamSpec("engine.allow_unknown_affordances", "allow_unknown_affordances", "publish plans that rely on objects whose synset is in no BEHAVIOR table (their abilities are "
              "assumed, not checked: UNKNOWN_AFFORDANCE); false: such plans are not verified"),
    ParamSpec("execution.replan_limit", "replan_limit", "replans allowed per goal after FAILED or timed-out subgoals",
              int_range=(0, 50)),
    ParamSpec("execution.skill_timeout_s", "skill_timeout_s", "seconds to wait for SUCCEEDED/FAILED of one subgoal",
              float_range=(0.01, 3600.0)),
    ParamSpec("scene.source", "scene_source", "where the problem comes from when the goal brings no bddl/task_id: bddl (scene.* parameters) "
              "or camera (perception of the camera topics with the goal's instruction)", choices=SCENE_SOURCES),
    ParamSpec("scene.task_id", "scene_task_id", "default activity name or .bddl path when the goal gives none"),
    ParamSpec("scene.benchmark", "scene_benchmark", "benchmark for scene.task_id / goal task ids (b100, b1k or empty)"),
    ParamSpec("scene.bddl_file", "scene_bddl_file", "default BDDL problem file when the goal gives neither bddl nor task_id"),
    ParamSpec("scene.goal_file_dirs", "goal_file_dirs", "directories (separated by ':') whose .bddl files a goal's or a verify request's task_id may "
              "name; empty: requests name activities only, never files"),
    ParamSpec("limits.max_bddl_bytes", "max_bddl_bytes", "largest BDDL text a request may carry or name (bytes; the largest BEHAVIOR file is 7.5 kB)",
              int_range=(1024, 67108864)),
    ParamSpec("limits.max_plan_bytes", "max_plan_bytes", "largest plan_text of a verify request (bytes)", int_range=(256, 67108864)),
    ParamSpec("limits.max_text_bytes", "max_text_bytes", "largest instruction, task_id, benchmark or robot field of a request (bytes)",
              int_range=(64, 1048576)),
    ParamSpec("camera.rgb_topic", "rgb_topic", "colour topic: sensor_msgs/Image, or CompressedImage when the name ends in /compressed (empty: off)"),
    ParamSpec("camera.depth_topic", "depth_topic", "depth topic: sensor_msgs/Image 16UC1 (mm) or 32FC1 (m), or CompressedImage (empty: off)"),
    ParamSpec("camera.info_topic", "info_topic", "sensor_msgs/CameraInfo topic (empty: off)"),
    ParamSpec("camera.sync_tolerance_s", "sync_tolerance_s", "largest colour/depth stamp difference paired into one frame", float_range=(0.0, 1.0)),
    ParamSpec("camera.stale_after_s", "stale_after_s", "frames older than this make the camera stale (diagnostics)", float_range=(0.1, 3600.0)),
    ParamSpec("camera.buffer_frames", "buffer_frames", "recent synchronised frames kept for a goal",
              int_range=(1, 256)),
    ParamSpec("camera.max_image_bytes", "max_image_bytes", "larger colour/depth images are rejected before decoding (bytes; 4K RGB is 25 MB)",
              int_range=(1024, 1073741824)),
    ParamSpec("camera.max_rate_hz", "max_rate_hz", "frames kept per second (the rest are thinned out)",
              float_range=(0.1, 1000.0)),
    ParamSpec("camera.min_frames", "min_frames", "recent frames a goal waits for (more frames: fewer missed tags)",
              int_range=(1, 256)),
    ParamSpec("camera.window_s", "window_s", "a goal perceives from frames received in the last window_s",
              float_range=(0.01, 3600.0)),
    ParamSpec("camera.wait_s", "wait_s", "how long a goal waits for fresh frames before it fails",
              float_range=(0.0, 3600.0)),
    ParamSpec("camera.keyframe_capacity", "keyframe_capacity", "key frames perceived per goal", int_range=(1, 64)),
    ParamSpec("camera.keyframe_threshold", "keyframe_threshold", "mean grey-level change (0..1) that makes a frame a new key frame", float_range=(0.0, 1.0)),
    ParamSpec("perception.detector", "detector", "detector spec: fiducial[:MAP.yaml], grounding-dino:PATH or yolo-world:PATH (local weights only)"),
    ParamSpec("perception.goal", "perception_goal", "goal drafting: retrieval (closest BEHAVIOR activity, re-grounded) or llm (perception.llm)",
              choices=GOAL_SOURCES),
    ParamSpec("perception.llm", "perception_llm", "backend spec that drafts the goal when perception.goal is llm"),
    ParamSpec("perception.judge", "perception_judge", "backend spec of the optional LLM-judge axis of the scene verifier (empty: off)"),
    ParamSpec("diagnostics.period_s", "diagnostics_period_s", "period of /diagnostics messages",
              float_range=(0.05, 60.0)),
)


def declare_parameters(node: Any) -> None:
    """Declare every parameter of PARAMS on ``node`` with its descriptor."""
    from rcl_interfaces.msg import FloatingPointRange, IntegerRange, ParameterDescriptor

    for spec in PARAMS:
        desc = ParameterDescriptor(name=spec.name, description=spec.description)
        if spec.choices:
            desc.additional_constraints = "one of: " + ", ".join(spec.choices)
        if spec.int_range:
            desc.integer_range = [IntegerRange(from_value=spec.int_range[0], to_value=spec.int_range[1], step=1)]
        if spec.float_range:
            desc.floating_point_range = [
                FloatingPointRange(from_value=spec.float_range[0], to_value=spec.float_range[1], step=0.0)
            ]
        node.declare_parameter(spec.name, spec.default, desc)


def read_config(node: Any) -> PlannerConfig:
    return PlannerConfig.from_values({spec.name: node.get_parameter(spec.name).value for spec in PARAMS})
