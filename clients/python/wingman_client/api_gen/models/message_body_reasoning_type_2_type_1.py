from __future__ import annotations

from typing import Literal

MessageBodyReasoningType2Type1 = Literal["high", "low", "max", "medium", "off"]

MESSAGE_BODY_REASONING_TYPE_2_TYPE_1_VALUES: set[MessageBodyReasoningType2Type1] = {
    "high",
    "low",
    "max",
    "medium",
    "off",
}


def check_message_body_reasoning_type_2_type_1(
    value: str,
) -> MessageBodyReasoningType2Type1:
    if value in MESSAGE_BODY_REASONING_TYPE_2_TYPE_1_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {MESSAGE_BODY_REASONING_TYPE_2_TYPE_1_VALUES!r}"
    )
