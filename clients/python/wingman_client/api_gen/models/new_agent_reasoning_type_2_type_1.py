from __future__ import annotations

from typing import Literal

NewAgentReasoningType2Type1 = Literal["high", "low", "max", "medium", "off"]

NEW_AGENT_REASONING_TYPE_2_TYPE_1_VALUES: set[NewAgentReasoningType2Type1] = {
    "high",
    "low",
    "max",
    "medium",
    "off",
}


def check_new_agent_reasoning_type_2_type_1(value: str) -> NewAgentReasoningType2Type1:
    if value in NEW_AGENT_REASONING_TYPE_2_TYPE_1_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {NEW_AGENT_REASONING_TYPE_2_TYPE_1_VALUES!r}"
    )
