"""The robot runtime's configuration: one nested model, one section per concern.

The sections are the planner node's parameter sections (``planner.*``, ``camera.*``, ...; see
``ros2_ws/src/symplan_ros/config/planner.yaml``) and each is handed as it is to the stage that
uses it: :class:`PlannerSection` to the planning session, :class:`CameraSection` to the camera
frame buffer, :class:`PerceptionSection` to the camera scene source. A field's description,
range (``ge``/``le``) and choices (``Literal``) are what the node declares as the parameter's
descriptor, so `ros2 param describe` and validation here read the same table.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from symplan_core.llm.spec import with_decoding
from symplan_core.prompts.builder import Variant

__all__ = [
    "CameraSection",
    "DiagnosticsSection",
    "EngineSection",
    "ExecutionSection",
    "LimitsSection",
    "PerceptionSection",
    "PlannerSection",
    "RuntimeConfig",
    "SceneSection",
]


class _Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class PlannerSection(_Section):
    backend: str = Field("reference", description=(
        "planner backend spec, e.g. reference or openai:http://host:8000/v1?model=NAME"))
    prompt_variant: Variant = Field("guided", description="prompt variant passed to build_prompt")
    repair_rounds: int = Field(2, ge=0, le=10, description="extra LLM calls that feed engine errors back")
    max_tokens: int = Field(2048, ge=1, le=32768, description=(
        "most tokens one LLM answer may have (bounds a planning call's time)"))
    decoding: Literal["free", "grammar", "guided"] = Field("free", description=(
        "how an LLM backend decodes: free, grammar (the answer format, task actions and fitting objects), "
        "guided (each call also executable in the engine's state); overrides a decoding= key in the backend spec"))
    think: str = Field("keep", description=(
        "the <think> budget under grammar/guided decoding: keep, skip, or a number of characters"))
    steps: str = Field("keep", description=(
        "the <steps> budget under grammar/guided decoding: keep (at most 1200 characters), skip, or a number "
        "of characters"))
    fallback: Literal["none", "reference"] = Field("reference", description=(
        "what to do when the LLM gives no valid plan: none (fail) or reference (symbolic planner, still verified)"))

    @property
    def backend_spec(self) -> str:
        """``backend`` with ``decoding``, ``think`` and ``steps`` applied: the spec every planner
        factory call of the runtime receives (``keep`` leaves the spec's own budget, so the
        reference planner, which does not decode, accepts the defaults; a non-free mode on it
        raises BackendSpecError)."""
        return with_decoding(self.backend, self.decoding, None if self.think == "keep" else self.think,
                             None if self.steps == "keep" else self.steps)


class EngineSection(_Section):
    allow_unknown_affordances: bool = Field(False, description=(
        "publish plans that rely on objects whose synset is in no BEHAVIOR table (their abilities are "
        "assumed, not checked: UNKNOWN_AFFORDANCE); false: such plans are not verified"))


class ExecutionSection(_Section):
    replan_limit: int = Field(3, ge=0, le=50, description="replans allowed per goal after FAILED or timed-out subgoals")
    skill_timeout_s: float = Field(30.0, ge=0.01, le=3600.0, description=(
        "seconds to wait for SUCCEEDED/FAILED of one subgoal"))
    monitor: Literal["auto", "off", "camera"] = Field("auto", description=(
        "check each SUCCEEDED subgoal's observable effects with the camera: camera, off, or auto "
        "(camera when scene.source is camera); a contradicted subgoal is replanned from the perceived state"))
    monitor_frames: int = Field(3, ge=1, le=64, description="fresh frames perceived to check one subgoal")
    monitor_wait_s: float = Field(5.0, ge=0.0, le=3600.0, description=(
        "how long to wait for fresh frames after a SUCCEEDED report (none: the effects are unobservable)"))
    monitor_settle_s: float = Field(0.2, ge=0.0, le=60.0, description=(
        "frames received within this many seconds after the report are not used (the scene settles)"))


class SceneSection(_Section):
    source: Literal["bddl", "camera"] = Field("bddl", description=(
        "where the problem comes from when the goal brings no bddl/task_id: bddl (scene.* parameters) "
        "or camera (perception of the camera topics with the goal's instruction)"))
    task_id: str = Field("", description="default activity name or .bddl path when the goal gives none")
    benchmark: str = Field("", description="benchmark for scene.task_id / goal task ids (b100, b1k or empty)")
    bddl_file: str = Field("", description="default BDDL problem file when the goal gives neither bddl nor task_id")
    goal_file_dirs: str = Field("", description=(
        "directories (separated by ':') whose .bddl files a goal's or a verify request's task_id may "
        "name; empty: requests name activities only, never files"))


class CameraSection(_Section):
    rgb_topic: str = Field("camera/color/image_raw", description=(
        "colour topic: sensor_msgs/Image, or CompressedImage when the name ends in /compressed (empty: off)"))
    depth_topic: str = Field("", description=(
        "depth topic: sensor_msgs/Image 16UC1 (mm) or 32FC1 (m), or CompressedImage (empty: off)"))
    info_topic: str = Field("", description="sensor_msgs/CameraInfo topic (empty: off)")
    sync_tolerance_s: float = Field(0.05, ge=0.0, le=1.0, description=(
        "largest colour/depth stamp difference paired into one frame"))
    stale_after_s: float = Field(2.0, ge=0.1, le=3600.0, description=(
        "frames older than this make the camera stale (diagnostics)"))
    buffer_frames: int = Field(12, ge=1, le=256, description="recent synchronised frames kept for a goal")
    max_image_bytes: int = Field(33554432, ge=1024, le=1073741824, description=(
        "larger colour/depth images are rejected before decoding (bytes; 4K RGB is 25 MB)"))
    max_rate_hz: float = Field(10.0, ge=0.1, le=1000.0, description="frames kept per second (the rest are thinned out)")
    min_frames: int = Field(3, ge=1, le=256, description="recent frames a goal waits for (more frames: fewer missed tags)")
    window_s: float = Field(2.0, ge=0.01, le=3600.0, description=(
        "a goal perceives from frames received in the last window_s"))
    wait_s: float = Field(5.0, ge=0.0, le=3600.0, description="how long a goal waits for fresh frames before it fails")
    keyframe_capacity: int = Field(8, ge=1, le=64, description="key frames perceived per goal")
    keyframe_threshold: float = Field(0.02, ge=0.0, le=1.0, description=(
        "mean grey-level change (0..1) that makes a frame a new key frame"))


class PerceptionSection(_Section):
    detector: str = Field("fiducial", description=(
        "detector spec: fiducial[:MAP.yaml], grounding-dino:PATH or yolo-world:PATH (local weights only)"))
    goal: Literal["retrieval", "llm", "hybrid"] = Field("retrieval", description=(
        "goal drafting: retrieval (closest BEHAVIOR activity, re-grounded), llm (perception.llm under the scene's "
        "goal grammar, retrieved goals as examples) or hybrid (retrieval when clear, else the LLM; a question when "
        "they disagree)"))
    llm: str = Field("", description="backend spec that drafts the goal when perception.goal is llm or hybrid")
    confirm: Literal["never", "novel"] = Field("novel", description=(
        "novel: a goal only the LLM vouches for (accepted, matching no retrieved activity's goal) ends the goal "
        "as needs_clarification with the goal in words, and an answer 'yes' resumes it (a robot asks before a "
        "task it has no example of); never: it is planned at once"))
    ask_unanswered: bool = Field(True, description=(
        "a retrieved goal that passes every check but never answers a state word of the instruction ('fold the "
        "sheets', and the closest known task folds nothing) ends the goal as needs_clarification with the goal in "
        "words, and 'yes' resumes it"))
    redrafts: int = Field(0, ge=0, le=3, description=(
        "goal: llm or hybrid: when the scene verifier refuses the LLM's goal for a reason a new draft can mend, "
        "the model redrafts this many times at most, with the verifier's reasons"))
    samples: int = Field(0, ge=0, le=8, description=(
        "goal: llm or hybrid: when the scene verifier refuses the LLM's greedy goal for a reason a new draft can "
        "mend, sample up to this many more goals and keep the first the verifier accepts (best-of-N)"))
    agreement: int = Field(0, ge=0, le=8, description=(
        "goal: llm or hybrid: hold an accepted LLM goal against this many goals sampled from the same prompt; when "
        "the verifier accepts some and none of them is the same task, the goal ends as needs_clarification with "
        "the distinct goals as candidates"))
    judge: str = Field("", description="backend spec of the optional LLM-judge axis of the scene verifier (empty: off)")


class LimitsSection(_Section):
    max_bddl_bytes: int = Field(65536, ge=1024, le=67108864, description=(
        "largest BDDL text a request may carry or name (bytes; the largest BEHAVIOR file is 7.5 kB)"))
    max_plan_bytes: int = Field(65536, ge=256, le=67108864, description="largest plan_text of a verify request (bytes)")
    max_text_bytes: int = Field(4096, ge=64, le=1048576, description=(
        "largest instruction, task_id, benchmark, robot, answer or clarification_id field of a request (bytes)"))


class DiagnosticsSection(_Section):
    period_s: float = Field(1.0, ge=0.05, le=60.0, description="period of /diagnostics messages")


class RuntimeConfig(_Section):
    """Everything the runtime is told. Built from the node's parameters (``symplan_ros.params``)
    or from a dict of sections (``RuntimeConfig.model_validate``); invalid values raise
    pydantic's ``ValidationError`` naming the field."""

    robot: str = Field("single", description="robot type the engine checks actions against (e.g. single, dual)")
    planner: PlannerSection = PlannerSection()
    engine: EngineSection = EngineSection()
    execution: ExecutionSection = ExecutionSection()
    scene: SceneSection = SceneSection()
    limits: LimitsSection = LimitsSection()
    camera: CameraSection = CameraSection()
    perception: PerceptionSection = PerceptionSection()
    diagnostics: DiagnosticsSection = DiagnosticsSection()
