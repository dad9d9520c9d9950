"""One error root: every layer's typed error is a SymPlanError and keeps the built-in base callers
caught before; compile_task raises a TaskError; the engine's findings are data, not exceptions."""

from __future__ import annotations

import pytest

from symplan_core.bddl import BDDLError, BDDLSyntaxError, parse_problem
from symplan_core.data.samples import SampleFileError
from symplan_core.eai.outputs import EaiFormatError
from symplan_core.engine import EngineError, Finding, action_set, compile_task, verify
from symplan_core.errors import BackendError, EngineConfigError, SymPlanError, TaskError
from symplan_core.fetch import DataError
from symplan_core.llm import BackendSpecError, BackendUnavailableError, make_backend
from symplan_core.llm.chat_template import ChatTemplateError
from symplan_core.llm.decoding import (
    DecodingError,
    GrammarNotEnforcedError,
    GrammarRejectedError,
    StructuredOutputUnsupportedError,
)
from symplan_core.llm.models import ModelIntegrityError, ModelRegistryError
from symplan_core.perception.errors import DetectorSpecError, PerceptionError
from symplan_core.perception.rigs.evaluation import InstructionFileError
from symplan_core.rosio.bags import BagError
from symplan_core.rosio.images import ImageError
from symplan_core.rosio.stream import CameraStreamError
from symplan_core.runtime.camera import CameraUnavailable
from symplan_core.runtime.clarify import AnswerRejected
from symplan_core.runtime.limits import RequestRejected
from symplan_core.runtime.sources import SceneError
from symplan_core.tasks import TaskNotFound, load_problem
from symplan_core.training.rewards import RewardDataError

LAYER_ERRORS = {  # error -> the built-in base it had before the root (None: it had Exception)
    BDDLError: None, BDDLSyntaxError: None, TaskError: ValueError, EngineConfigError: ValueError,
    BackendSpecError: ValueError, BackendUnavailableError: RuntimeError, ModelRegistryError: LookupError,
    ModelIntegrityError: RuntimeError, PerceptionError: None, DetectorSpecError: None, BagError: None,
    ImageError: ValueError, CameraStreamError: ValueError, DataError: None, TaskNotFound: None,
    SampleFileError: ValueError, RewardDataError: ValueError, EaiFormatError: ValueError,
    SceneError: ValueError, RequestRejected: ValueError, CameraUnavailable: None,
    DecodingError: RuntimeError, GrammarRejectedError: RuntimeError, GrammarNotEnforcedError: RuntimeError,
    StructuredOutputUnsupportedError: RuntimeError, ChatTemplateError: LookupError,
    InstructionFileError: ValueError, AnswerRejected: ValueError,
}


@pytest.mark.parametrize("error", list(LAYER_ERRORS), ids=lambda e: e.__name__)
def test_every_layer_error_is_a_symplan_error_and_keeps_its_former_base(error: type[Exception]) -> None:
    assert issubclass(error, SymPlanError)
    builtin = LAYER_ERRORS[error]
    if builtin is not None:
        assert issubclass(error, builtin)


def test_backend_errors_share_the_backend_root() -> None:
    for error in (BackendSpecError, BackendUnavailableError, ModelRegistryError, ModelIntegrityError,
                  DecodingError, ChatTemplateError):
        assert issubclass(error, BackendError)
    with pytest.raises(BackendError):
        make_backend("nonsense:spec")


def test_compile_task_raises_a_task_error_with_the_engine_message() -> None:
    problem = load_problem("bringing_in_wood", "b100")
    with pytest.raises(TaskError, match="robot must be 'single' or 'dual', not 'triple'"):
        compile_task(problem, robot="triple")
    with pytest.raises(ValueError):  # callers that caught ValueError still do
        compile_task(problem, robot="triple")


def test_an_unknown_action_set_is_an_engine_config_error() -> None:
    with pytest.raises(EngineConfigError, match="unknown action set 'b2000'"):
        action_set("b2000")
    with pytest.raises(EngineConfigError):
        compile_task(load_problem("bringing_in_wood", "b100"), actions="b2000")


def test_a_bad_bddl_text_is_a_symplan_error() -> None:
    with pytest.raises(SymPlanError):
        parse_problem("(define (problem x) (:objects a - b", filename="<test>")


def test_engine_findings_are_data_not_exceptions() -> None:
    result = verify(compile_task(load_problem("bringing_in_wood", "b100")), "grasp(plywood_1)")
    assert result.errors and all(isinstance(e, Finding) for e in result.errors)
    assert not issubclass(Finding, BaseException)
    assert EngineError is Finding  # the former name, kept while callers move
