"""Parameters of the planner node: declared from :class:`~symplan_core.runtime.config.RuntimeConfig`.

The model is the one table: each field of a section is the parameter ``section.field`` (``robot``
at the top), declared with a ParameterDescriptor made from the field's description, range
(``ge``/``le``) and choices (``Literal``), so `ros2 param describe` explains it. Values come from
config/planner.yaml via --params-file and are read back into the same model.
"""

from __future__ import annotations

import typing
from collections.abc import Iterator
from dataclasses import dataclass

import annotated_types
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from rcl_interfaces.msg import FloatingPointRange, IntegerRange, ParameterDescriptor
from rclpy.node import Node

from symplan_core.runtime.config import RuntimeConfig

ParamValue = str | int | float | bool


@dataclass(frozen=True)
class ParamSpec:
    """One parameter: its dotted name, the (section, field) it fills and its descriptor's parts."""

    name: str
    section: str  # "" for a top-level field
    field: str
    default: ParamValue
    description: str
    choices: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None

    def descriptor(self) -> ParameterDescriptor:
        desc = ParameterDescriptor(name=self.name, description=self.description)
        if self.choices:
            desc.additional_constraints = "one of: " + ", ".join(self.choices)
        if self.low is None or self.high is None:
            return desc
        if isinstance(self.default, float):
            desc.floating_point_range = [FloatingPointRange(from_value=self.low, to_value=self.high, step=0.0)]
        elif isinstance(self.default, int) and not isinstance(self.default, bool):
            desc.integer_range = [IntegerRange(from_value=int(self.low), to_value=int(self.high), step=1)]
        return desc


def _bound(info: FieldInfo, kind: type[annotated_types.Ge] | type[annotated_types.Le]) -> float | None:
    """The field's ``ge`` or ``le`` bound (a number in every section of the model)."""
    for m in info.metadata:
        if isinstance(m, kind):
            value = m.ge if isinstance(m, annotated_types.Ge) else m.le
            return float(value) if isinstance(value, int | float) else None
    return None


def _spec(name: str, section: str, field: str, info: FieldInfo) -> ParamSpec:
    choices = typing.get_args(info.annotation) if typing.get_origin(info.annotation) is typing.Literal else ()
    return ParamSpec(name, section, field, info.default, info.description or "", tuple(choices),
                     _bound(info, annotated_types.Ge), _bound(info, annotated_types.Le))


def _specs(model: type[RuntimeConfig]) -> Iterator[ParamSpec]:
    for name, info in model.model_fields.items():
        section = info.annotation
        if isinstance(section, type) and issubclass(section, BaseModel):
            for field, sub in section.model_fields.items():
                yield _spec(f"{name}.{field}", name, field, sub)
        else:
            yield _spec(name, "", name, info)


PARAMS: tuple[ParamSpec, ...] = tuple(_specs(RuntimeConfig))


def declare_parameters(node: Node) -> None:
    """Declare every parameter of PARAMS on ``node`` with its descriptor."""
    for spec in PARAMS:
        node.declare_parameter(spec.name, spec.default, spec.descriptor())


def config_from_values(values: dict[str, ParamValue]) -> RuntimeConfig:
    """The configuration of {parameter name: value}; raises pydantic's ValidationError (a
    ValueError) naming the parameter's section and field for a value outside its spec."""
    nested: dict[str, typing.Any] = {}
    for spec in PARAMS:
        if spec.name in values:
            target = nested.setdefault(spec.section, {}) if spec.section else nested
            target[spec.field] = values[spec.name]
    return RuntimeConfig.model_validate(nested)


def read_config(node: Node) -> RuntimeConfig:
    return config_from_values({spec.name: node.get_parameter(spec.name).value for spec in PARAMS})
