from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="NewFormationNodesItemType3Args")


@_attrs_define
class NewFormationNodesItemType3Args:
    """
    Attributes:
        path (str):
    """

    path: str

    def to_dict(self) -> dict[str, Any]:
        path = self.path

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "path": path,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        path = d.pop("path")

        new_formation_nodes_item_type_3_args = cls(
            path=path,
        )

        return new_formation_nodes_item_type_3_args
