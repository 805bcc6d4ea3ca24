from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.content_type_1_type import ContentType1Type, check_content_type_1_type

T = TypeVar("T", bound="ContentType1")


@_attrs_define
class ContentType1:
    """
    Attributes:
        id (str):
        input_ (Any):
        name (str):
        type_ (ContentType1Type):
    """

    id: str
    input_: Any
    name: str
    type_: ContentType1Type
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        input_ = self.input_

        name = self.name

        type_: str = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "input": input_,
                "name": name,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        input_ = d.pop("input")

        name = d.pop("name")

        type_ = check_content_type_1_type(d.pop("type"))

        content_type_1 = cls(
            id=id,
            input_=input_,
            name=name,
            type_=type_,
        )

        content_type_1.additional_properties = d
        return content_type_1

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
