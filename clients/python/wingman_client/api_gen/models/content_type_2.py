from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.content_type_2_type import ContentType2Type, check_content_type_2_type

T = TypeVar("T", bound="ContentType2")


@_attrs_define
class ContentType2:
    """
    Attributes:
        content (str):
        is_error (bool):
        tool_use_id (str):
        type_ (ContentType2Type):
    """

    content: str
    is_error: bool
    tool_use_id: str
    type_: ContentType2Type
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        content = self.content

        is_error = self.is_error

        tool_use_id = self.tool_use_id

        type_: str = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "content": content,
                "is_error": is_error,
                "tool_use_id": tool_use_id,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        content = d.pop("content")

        is_error = d.pop("is_error")

        tool_use_id = d.pop("tool_use_id")

        type_ = check_content_type_2_type(d.pop("type"))

        content_type_2 = cls(
            content=content,
            is_error=is_error,
            tool_use_id=tool_use_id,
            type_=type_,
        )

        content_type_2.additional_properties = d
        return content_type_2

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
