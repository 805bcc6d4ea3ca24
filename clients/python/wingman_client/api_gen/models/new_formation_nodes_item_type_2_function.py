from __future__ import annotations

from typing import Literal

NewFormationNodesItemType2Function = Literal["split_lines"]

NEW_FORMATION_NODES_ITEM_TYPE_2_FUNCTION_VALUES: set[
    NewFormationNodesItemType2Function
] = {
    "split_lines",
}


def check_new_formation_nodes_item_type_2_function(
    value: str,
) -> NewFormationNodesItemType2Function:
    if value in NEW_FORMATION_NODES_ITEM_TYPE_2_FUNCTION_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {NEW_FORMATION_NODES_ITEM_TYPE_2_FUNCTION_VALUES!r}"
    )
