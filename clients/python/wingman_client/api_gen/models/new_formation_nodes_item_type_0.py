from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="NewFormationNodesItemType0")


@_attrs_define
class NewFormationNodesItemType0:
    """
    Attributes:
        agent_id (str): The agent that answers the node's input
        id (str):
    """

    agent_id: str
    id: str

    def to_dict(self) -> dict[str, Any]:
        agent_id = self.agent_id

        id = self.id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "agent_id": agent_id,
                "id": id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        agent_id = d.pop("agent_id")

        id = d.pop("id")

        new_formation_nodes_item_type_0 = cls(
            agent_id=agent_id,
            id=id,
        )

        return new_formation_nodes_item_type_0
