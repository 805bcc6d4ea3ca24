from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="Concurrency")


@_attrs_define
class Concurrency:
    """A concurrency key and its limit: at most `limit` runs with `key` are
    running at once, across every worker and host. A run waiting for a
    person or a client is not running, so it gives its slot back.

        Attributes:
            key (str): 1 to 200 characters; runs that share it share its limit.
            limit (int): From 1 to 10,000.
    """

    key: str
    limit: int

    def to_dict(self) -> dict[str, Any]:
        key = self.key

        limit = self.limit

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "key": key,
                "limit": limit,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        key = d.pop("key")

        limit = d.pop("limit")

        concurrency = cls(
            key=key,
            limit=limit,
        )

        return concurrency
