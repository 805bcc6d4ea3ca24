from __future__ import annotations

from typing import Literal

NewAgentToolsType0Item = Literal[
    "bash", "edit", "glob", "grep", "read", "webfetch", "write"
]

NEW_AGENT_TOOLS_TYPE_0_ITEM_VALUES: set[NewAgentToolsType0Item] = {
    "bash",
    "edit",
    "glob",
    "grep",
    "read",
    "webfetch",
    "write",
}


def check_new_agent_tools_type_0_item(value: str) -> NewAgentToolsType0Item:
    if value in NEW_AGENT_TOOLS_TYPE_0_ITEM_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {NEW_AGENT_TOOLS_TYPE_0_ITEM_VALUES!r}"
    )
