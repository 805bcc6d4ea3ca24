from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="NewFormationNodesItemType5Args")


@_attrs_define
class NewFormationNodesItemType5Args:
    """
    Attributes:
        template (str):
    """

    template: str

    def to_dict(self) -> dict[str, Any]:
        template = self.template

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "template": template,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        template = d.pop("template")

        new_formation_nodes_item_type_5_args = cls(
            template=template,
        )

        return new_formation_nodes_item_type_5_args
