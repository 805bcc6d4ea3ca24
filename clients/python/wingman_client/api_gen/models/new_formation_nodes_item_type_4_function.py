from __future__ import annotations

from typing import Literal

NewFormationNodesItemType4Function = Literal["join"]

NEW_FORMATION_NODES_ITEM_TYPE_4_FUNCTION_VALUES: set[
    NewFormationNodesItemType4Function
] = {
    "join",
}


def check_new_formation_nodes_item_type_4_function(
    value: str,
) -> NewFormationNodesItemType4Function:
    if value in NEW_FORMATION_NODES_ITEM_TYPE_4_FUNCTION_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {NEW_FORMATION_NODES_ITEM_TYPE_4_FUNCTION_VALUES!r}"
    )
