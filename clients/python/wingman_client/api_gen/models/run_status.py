from __future__ import annotations

from typing import Literal

RunStatus = Literal[
    "cancelled", "failed", "interrupted", "queued", "running", "succeeded", "waiting"
]

RUN_STATUS_VALUES: set[RunStatus] = {
    "cancelled",
    "failed",
    "interrupted",
    "queued",
    "running",
    "succeeded",
    "waiting",
}


def check_run_status(value: str) -> RunStatus:
    if value in RUN_STATUS_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {RUN_STATUS_VALUES!r}"
    )
