from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ServerListing")


@_attrs_define
class ServerListing:
    """When a worker listed an MCP server's tools.

    Attributes:
        age_secs (int): Seconds since.
        listed_at (str):
        server (str):
    """

    age_secs: int
    listed_at: str
    server: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        age_secs = self.age_secs

        listed_at = self.listed_at

        server = self.server

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "age_secs": age_secs,
                "listed_at": listed_at,
                "server": server,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        age_secs = d.pop("age_secs")

        listed_at = d.pop("listed_at")

        server = d.pop("server")

        server_listing = cls(
            age_secs=age_secs,
            listed_at=listed_at,
            server=server,
        )

        server_listing.additional_properties = d
        return server_listing

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
