from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="NodeRef")


@_attrs_define
class NodeRef:
    """Where a node's run belongs: written into its input, read when it ends.

    Attributes:
        formation_run_id (str):
        node (str):
    """

    formation_run_id: str
    node: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        formation_run_id = self.formation_run_id

        node = self.node

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "formation_run_id": formation_run_id,
                "node": node,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        formation_run_id = d.pop("formation_run_id")

        node = d.pop("node")

        node_ref = cls(
            formation_run_id=formation_run_id,
            node=node,
        )

        node_ref.additional_properties = d
        return node_ref

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
