from __future__ import annotations

from typing import Literal

NodeStatus = Literal[
    "cancelled", "failed", "pending", "running", "succeeded", "waiting"
]

NODE_STATUS_VALUES: set[NodeStatus] = {
    "cancelled",
    "failed",
    "pending",
    "running",
    "succeeded",
    "waiting",
}


def check_node_status(value: str) -> NodeStatus:
    if value in NODE_STATUS_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {NODE_STATUS_VALUES!r}"
    )
