from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="RewindBody")


@_attrs_define
class RewindBody:
    """Where a rewind goes back to.

    Attributes:
        to (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
    """

    to: str

    def to_dict(self) -> dict[str, Any]:
        to = self.to

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "to": to,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        to = d.pop("to")

        rewind_body = cls(
            to=to,
        )

        return rewind_body
