from __future__ import annotations

from typing import Literal

NewFormationNodesItemType3Function = Literal["json_path"]

NEW_FORMATION_NODES_ITEM_TYPE_3_FUNCTION_VALUES: set[
    NewFormationNodesItemType3Function
] = {
    "json_path",
}


def check_new_formation_nodes_item_type_3_function(
    value: str,
) -> NewFormationNodesItemType3Function:
    if value in NEW_FORMATION_NODES_ITEM_TYPE_3_FUNCTION_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {NEW_FORMATION_NODES_ITEM_TYPE_3_FUNCTION_VALUES!r}"
    )
