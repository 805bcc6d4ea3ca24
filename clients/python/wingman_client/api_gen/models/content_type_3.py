from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.content_type_3_type import ContentType3Type, check_content_type_3_type
from ..types import UNSET, Unset

T = TypeVar("T", bound="ContentType3")


@_attrs_define
class ContentType3:
    """The model's thinking before its answer. `signature` is the
    provider's proof of it (Anthropic's), sent back unchanged.

        Attributes:
            thinking (str):
            type_ (ContentType3Type):
            signature (None | str | Unset):
    """

    thinking: str
    type_: ContentType3Type
    signature: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        thinking = self.thinking

        type_: str = self.type_

        signature: None | str | Unset
        if isinstance(self.signature, Unset):
            signature = UNSET
        else:
            signature = self.signature

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "thinking": thinking,
                "type": type_,
            }
        )
        if signature is not UNSET:
            field_dict["signature"] = signature

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        thinking = d.pop("thinking")

        type_ = check_content_type_3_type(d.pop("type"))

        def _parse_signature(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        signature = _parse_signature(d.pop("signature", UNSET))

        content_type_3 = cls(
            thinking=thinking,
            type_=type_,
            signature=signature,
        )

        content_type_3.additional_properties = d
        return content_type_3

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
