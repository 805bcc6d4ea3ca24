from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="NewFormationNodesItemType4Args")


@_attrs_define
class NewFormationNodesItemType4Args:
    """
    Attributes:
        separator (str | Unset):
    """

    separator: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        separator = self.separator

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if separator is not UNSET:
            field_dict["separator"] = separator

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        separator = d.pop("separator", UNSET)

        new_formation_nodes_item_type_4_args = cls(
            separator=separator,
        )

        return new_formation_nodes_item_type_4_args
