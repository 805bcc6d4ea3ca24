from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="NewFormationNodesItemType1")


@_attrs_define
class NewFormationNodesItemType1:
    """
    Attributes:
        fleet_id (str): The fleet that runs a task per item of its input
        id (str):
    """

    fleet_id: str
    id: str

    def to_dict(self) -> dict[str, Any]:
        fleet_id = self.fleet_id

        id = self.id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "fleet_id": fleet_id,
                "id": id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        fleet_id = d.pop("fleet_id")

        id = d.pop("id")

        new_formation_nodes_item_type_1 = cls(
            fleet_id=fleet_id,
            id=id,
        )

        return new_formation_nodes_item_type_1
