from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="SecretBody")


@_attrs_define
class SecretBody:
    """The body of `PUT /secrets/{name}`.

    Attributes:
        value (str): Not empty, no NUL; at most 64 KiB of UTF-8
    """

    value: str

    def to_dict(self) -> dict[str, Any]:
        value = self.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "value": value,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        value = d.pop("value")

        secret_body = cls(
            value=value,
        )

        return secret_body
