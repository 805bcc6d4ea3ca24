from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="NewFormationNodesItemType2Args")


@_attrs_define
class NewFormationNodesItemType2Args:
    def to_dict(self) -> dict[str, Any]:

        field_dict: dict[str, Any] = {}

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        new_formation_nodes_item_type_2_args = cls()

        return new_formation_nodes_item_type_2_args
