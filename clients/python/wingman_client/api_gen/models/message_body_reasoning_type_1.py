from __future__ import annotations

from typing import Literal

MessageBodyReasoningType1 = Literal["high", "low", "max", "medium", "off"]

MESSAGE_BODY_REASONING_TYPE_1_VALUES: set[MessageBodyReasoningType1] = {
    "high",
    "low",
    "max",
    "medium",
    "off",
}


def check_message_body_reasoning_type_1(value: str) -> MessageBodyReasoningType1:
    if value in MESSAGE_BODY_REASONING_TYPE_1_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {MESSAGE_BODY_REASONING_TYPE_1_VALUES!r}"
    )
