from __future__ import annotations

from typing import Literal

SessionFieldsToolsType0Item = Literal[
    "bash", "edit", "glob", "grep", "read", "webfetch", "write"
]

SESSION_FIELDS_TOOLS_TYPE_0_ITEM_VALUES: set[SessionFieldsToolsType0Item] = {
    "bash",
    "edit",
    "glob",
    "grep",
    "read",
    "webfetch",
    "write",
}


def check_session_fields_tools_type_0_item(value: str) -> SessionFieldsToolsType0Item:
    if value in SESSION_FIELDS_TOOLS_TYPE_0_ITEM_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {SESSION_FIELDS_TOOLS_TYPE_0_ITEM_VALUES!r}"
    )
