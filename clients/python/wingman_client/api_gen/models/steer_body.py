from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="SteerBody")


@_attrs_define
class SteerBody:
    """A message for a run to take in at its next step boundary.

    Attributes:
        message (str): Not blank; at most 256 KiB of UTF-8
    """

    message: str

    def to_dict(self) -> dict[str, Any]:
        message = self.message

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "message": message,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        message = d.pop("message")

        steer_body = cls(
            message=message,
        )

        return steer_body
