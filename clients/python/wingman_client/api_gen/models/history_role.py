from __future__ import annotations

from typing import Literal

HistoryRole = Literal["assistant", "compaction", "user"]

HISTORY_ROLE_VALUES: set[HistoryRole] = {
    "assistant",
    "compaction",
    "user",
}


def check_history_role(value: str) -> HistoryRole:
    if value in HISTORY_ROLE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {HISTORY_ROLE_VALUES!r}"
    )
