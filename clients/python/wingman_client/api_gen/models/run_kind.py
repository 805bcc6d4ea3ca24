from __future__ import annotations

from typing import Literal

RunKind = Literal["compaction", "fleet_task", "formation_node", "message", "subagent"]

RUN_KIND_VALUES: set[RunKind] = {
    "compaction",
    "fleet_task",
    "formation_node",
    "message",
    "subagent",
}


def check_run_kind(value: str) -> RunKind:
    if value in RUN_KIND_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {RUN_KIND_VALUES!r}")
