from __future__ import annotations

from typing import Literal

AgentFieldsReasoningType1 = Literal["high", "low", "max", "medium", "off"]

AGENT_FIELDS_REASONING_TYPE_1_VALUES: set[AgentFieldsReasoningType1] = {
    "high",
    "low",
    "max",
    "medium",
    "off",
}


def check_agent_fields_reasoning_type_1(value: str) -> AgentFieldsReasoningType1:
    if value in AGENT_FIELDS_REASONING_TYPE_1_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {AGENT_FIELDS_REASONING_TYPE_1_VALUES!r}"
    )
