from __future__ import annotations

from typing import Literal

SandboxMode = Literal["auto", "off", "required"]

SANDBOX_MODE_VALUES: set[SandboxMode] = {
    "auto",
    "off",
    "required",
}


def check_sandbox_mode(value: str) -> SandboxMode:
    if value in SANDBOX_MODE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {SANDBOX_MODE_VALUES!r}"
    )
