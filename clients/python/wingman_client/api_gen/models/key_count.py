from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="KeyCount")


@_attrs_define
class KeyCount:
    """The queued and running runs of one concurrency key.

    Attributes:
        held (int): Of the queued, those held for a free slot.
        key (str):
        limit (int): The highest limit its runs carry.
        queued (int):
        running (int):
    """

    held: int
    key: str
    limit: int
    queued: int
    running: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        held = self.held

        key = self.key

        limit = self.limit

        queued = self.queued

        running = self.running

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "held": held,
                "key": key,
                "limit": limit,
                "queued": queued,
                "running": running,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        held = d.pop("held")

        key = d.pop("key")

        limit = d.pop("limit")

        queued = d.pop("queued")

        running = d.pop("running")

        key_count = cls(
            held=held,
            key=key,
            limit=limit,
            queued=queued,
            running=running,
        )

        key_count.additional_properties = d
        return key_count

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
