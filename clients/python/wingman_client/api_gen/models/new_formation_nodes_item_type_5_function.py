from __future__ import annotations

from typing import Literal

NewFormationNodesItemType5Function = Literal["template"]

NEW_FORMATION_NODES_ITEM_TYPE_5_FUNCTION_VALUES: set[
    NewFormationNodesItemType5Function
] = {
    "template",
}


def check_new_formation_nodes_item_type_5_function(
    value: str,
) -> NewFormationNodesItemType5Function:
    if value in NEW_FORMATION_NODES_ITEM_TYPE_5_FUNCTION_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {NEW_FORMATION_NODES_ITEM_TYPE_5_FUNCTION_VALUES!r}"
    )
