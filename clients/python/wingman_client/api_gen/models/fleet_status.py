from __future__ import annotations

from typing import Literal

FleetStatus = Literal["running", "stopped"]

FLEET_STATUS_VALUES: set[FleetStatus] = {
    "running",
    "stopped",
}


def check_fleet_status(value: str) -> FleetStatus:
    if value in FLEET_STATUS_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {FLEET_STATUS_VALUES!r}"
    )
