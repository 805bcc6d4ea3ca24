from __future__ import annotations

from typing import Literal

Role = Literal["admin", "member", "reader"]

ROLE_VALUES: set[Role] = {
    "admin",
    "member",
    "reader",
}


def check_role(value: str) -> Role:
    if value in ROLE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {ROLE_VALUES!r}")
