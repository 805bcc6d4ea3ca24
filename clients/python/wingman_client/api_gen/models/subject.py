from __future__ import annotations

from typing import Literal

Subject = Literal["fleet_run", "formation_run", "run"]

SUBJECT_VALUES: set[Subject] = {
    "fleet_run",
    "formation_run",
    "run",
}


def check_subject(value: str) -> Subject:
    if value in SUBJECT_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {SUBJECT_VALUES!r}")
