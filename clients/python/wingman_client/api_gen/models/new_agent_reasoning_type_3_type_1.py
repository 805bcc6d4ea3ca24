from __future__ import annotations

from typing import Literal

NewAgentReasoningType3Type1 = Literal["high", "low", "max", "medium", "off"]

NEW_AGENT_REASONING_TYPE_3_TYPE_1_VALUES: set[NewAgentReasoningType3Type1] = {
    "high",
    "low",
    "max",
    "medium",
    "off",
}


def check_new_agent_reasoning_type_3_type_1(value: str) -> NewAgentReasoningType3Type1:
    if value in NEW_AGENT_REASONING_TYPE_3_TYPE_1_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {NEW_AGENT_REASONING_TYPE_3_TYPE_1_VALUES!r}"
    )
