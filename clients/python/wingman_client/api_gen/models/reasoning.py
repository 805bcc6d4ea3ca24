from __future__ import annotations

from typing import Literal

Reasoning = Literal["high", "low", "max", "medium", "off"]

REASONING_VALUES: set[Reasoning] = {
    "high",
    "low",
    "max",
    "medium",
    "off",
}


def check_reasoning(value: str) -> Reasoning:
    if value in REASONING_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {REASONING_VALUES!r}")
