from __future__ import annotations

from typing import Literal

MultitaskStrategy = Literal["enqueue", "interrupt", "reject", "rollback"]

MULTITASK_STRATEGY_VALUES: set[MultitaskStrategy] = {
    "enqueue",
    "interrupt",
    "reject",
    "rollback",
}


def check_multitask_strategy(value: str) -> MultitaskStrategy:
    if value in MULTITASK_STRATEGY_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {MULTITASK_STRATEGY_VALUES!r}"
    )
