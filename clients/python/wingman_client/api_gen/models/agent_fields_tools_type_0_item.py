from __future__ import annotations

from typing import Literal

AgentFieldsToolsType0Item = Literal[
    "bash", "edit", "glob", "grep", "read", "webfetch", "write"
]

AGENT_FIELDS_TOOLS_TYPE_0_ITEM_VALUES: set[AgentFieldsToolsType0Item] = {
    "bash",
    "edit",
    "glob",
    "grep",
    "read",
    "webfetch",
    "write",
}


def check_agent_fields_tools_type_0_item(value: str) -> AgentFieldsToolsType0Item:
    if value in AGENT_FIELDS_TOOLS_TYPE_0_ITEM_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {AGENT_FIELDS_TOOLS_TYPE_0_ITEM_VALUES!r}"
    )
