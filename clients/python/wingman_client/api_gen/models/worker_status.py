from __future__ import annotations

from typing import Literal

WorkerStatus = Literal["lapsed", "live", "stopped"]

WORKER_STATUS_VALUES: set[WorkerStatus] = {
    "lapsed",
    "live",
    "stopped",
}


def check_worker_status(value: str) -> WorkerStatus:
    if value in WORKER_STATUS_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {WORKER_STATUS_VALUES!r}"
    )
