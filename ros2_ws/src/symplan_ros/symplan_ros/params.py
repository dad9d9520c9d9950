"""Parameters of the planner node: one table drives declaration, descriptors and the config.

Every parameter is declared with a ParameterDescriptor (description, range, read-only) so
`ros2 param describe` explains it; values come from config/planner.yaml via --params-file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

FALLBACK_POLICIES = ("none", "reference")
SCENE_SOURCES = ("bddl",)  # "perception" arrives with the perception component


@dataclass(frozen=True)
class ParamSpec:
    name: str
    default: Any
    description: str
    int_range: tuple[int, int] | None = None
    float_range: tuple[float, float] | None = None
    choices: tuple[str, ...] = ()


PARAMS: tuple[ParamSpec, ...] = (
    ParamSpec("robot", "single", "robot type the engine checks actions against (e.g. single, dual)"),
    ParamSpec("planner.backend", "reference",
              "planner backend spec, e.g. reference or openai:http://host:8000/v1?model=NAME"),
    ParamSpec("planner.prompt_variant", "guided", "prompt variant passed to build_prompt"),
    ParamSpec("planner.repair_rounds", 2, "extra LLM calls that feed engine errors back", int_range=(0, 10)),
    ParamSpec("planner.fallback", "reference",
              "what to do when the LLM gives no valid plan: none (fail) or reference (symbolic planner, still verified)",
              choices=FALLBACK_POLICIES),
    ParamSpec("engine.allow_unknown_affordances", False,
              "publish plans that rely on objects whose synset is in no BEHAVIOR table (their abilities are "
              "assumed, not checked: UNKNOWN_AFFORDANCE); false: such plans are not verified"),
    ParamSpec("execution.replan_limit", 3, "replans allowed per goal after FAILED or timed-out subgoals",
              int_range=(0, 50)),
    ParamSpec("execution.skill_timeout_s", 30.0, "seconds to wait for SUCCEEDED/FAILED of one subgoal",
              float_range=(0.01, 3600.0)),
    ParamSpec("scene.source", "bddl", "scene source: bddl (goal BDDL / task id / parameters)",
              choices=SCENE_SOURCES),
    ParamSpec("scene.task_id", "", "default activity name or .bddl path when the goal gives none"),
    ParamSpec("scene.benchmark", "", "benchmark for scene.task_id / goal task ids (b100, b1k or empty)"),
    ParamSpec("scene.bddl_file", "", "default BDDL problem file when the goal gives neither bddl nor task_id"),
    ParamSpec("camera.rgb_topic", "camera/color/image_raw", "sensor_msgs/Image RGB topic (empty: off)"),
    ParamSpec("camera.depth_topic", "", "sensor_msgs/Image depth topic (empty: off)"),
    ParamSpec("camera.info_topic", "", "sensor_msgs/CameraInfo topic (empty: off)"),
    ParamSpec("camera.keyframe_capacity", 16, "key frames kept for the scene source", int_range=(1, 1024)),
    ParamSpec("camera.keyframe_threshold", 0.08,
              "mean grey-level difference (0..1) that makes a frame a key frame", float_range=(0.0, 1.0)),
    ParamSpec("diagnostics.period_s", 1.0, "period of /diagnostics messages", float_range=(0.05, 60.0)),
)


@dataclass(frozen=True)
class PlannerConfig:
    robot: str = "single"
    backend: str = "reference"
    prompt_variant: str = "guided"
    repair_rounds: int = 2
    fallback: str = "reference"
    allow_unknown_affordances: bool = False
    replan_limit: int = 3
    skill_timeout_s: float = 30.0
    scene_source: str = "bddl"
    scene_task_id: str = ""
    scene_benchmark: str = ""
    scene_bddl_file: str = ""
    rgb_topic: str = "camera/color/image_raw"
    depth_topic: str = ""
    info_topic: str = ""
    keyframe_capacity: int = 16
    keyframe_threshold: float = 0.08
    diagnostics_period_s: float = 1.0

    @classmethod
    def from_values(cls, values: dict[str, Any]) -> PlannerConfig:
        """Build from {param name: value}; raises ValueError on a value outside its spec."""
        for spec in PARAMS:
            if spec.name in values and spec.choices and values[spec.name] not in spec.choices:
                raise ValueError(f"{spec.name}={values[spec.name]!r}: choose from {spec.choices}")
        get = values.get
        return cls(
            robot=get("robot", cls.robot), backend=get("planner.backend", cls.backend),
            prompt_variant=get("planner.prompt_variant", cls.prompt_variant),
            repair_rounds=get("planner.repair_rounds", cls.repair_rounds),
            fallback=get("planner.fallback", cls.fallback),
            allow_unknown_affordances=get("engine.allow_unknown_affordances", cls.allow_unknown_affordances),
            replan_limit=get("execution.replan_limit", cls.replan_limit),
            skill_timeout_s=get("execution.skill_timeout_s", cls.skill_timeout_s),
            scene_source=get("scene.source", cls.scene_source),
            scene_task_id=get("scene.task_id", cls.scene_task_id),
            scene_benchmark=get("scene.benchmark", cls.scene_benchmark),
            scene_bddl_file=get("scene.bddl_file", cls.scene_bddl_file),
            rgb_topic=get("camera.rgb_topic", cls.rgb_topic),
            depth_topic=get("camera.depth_topic", cls.depth_topic),
            info_topic=get("camera.info_topic", cls.info_topic),
            keyframe_capacity=get("camera.keyframe_capacity", cls.keyframe_capacity),
            keyframe_threshold=get("camera.keyframe_threshold", cls.keyframe_threshold),
            diagnostics_period_s=get("diagnostics.period_s", cls.diagnostics_period_s),
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
