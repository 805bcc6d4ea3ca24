from __future__ import annotations

from typing import Literal

FleetRunStatus = Literal["cancelled", "failed", "queued", "running", "succeeded"]

FLEET_RUN_STATUS_VALUES: set[FleetRunStatus] = {
    "cancelled",
    "failed",
    "queued",
    "running",
    "succeeded",
}


def check_fleet_run_status(value: str) -> FleetRunStatus:
    if value in FLEET_RUN_STATUS_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {FLEET_RUN_STATUS_VALUES!r}"
    )
