from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="PutBodyProvidersAdditionalProperty")


@_attrs_define
class PutBodyProvidersAdditionalProperty:
    """One key.

    Attributes:
        key (str): 1 to 4096 visible ASCII characters, no spaces
        type_ (str): Always `api_key`.
    """

    key: str
    type_: str

    def to_dict(self) -> dict[str, Any]:
        key = self.key

        type_ = self.type_

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "key": key,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        key = d.pop("key")

        type_ = d.pop("type")

        put_body_providers_additional_property = cls(
            key=key,
            type_=type_,
        )

        return put_body_providers_additional_property
