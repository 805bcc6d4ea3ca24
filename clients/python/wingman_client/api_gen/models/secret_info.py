from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from dateutil.parser import isoparse

T = TypeVar("T", bound="SecretInfo")


@_attrs_define
class SecretInfo:
    """What may be shown about a stored secret: never its value.

    Attributes:
        created_at (datetime.datetime): When a value was first stored under this name.
        name (str): The name an MCP server's `env` or `headers` refers to it by.
        owner (str): Whose value it is: the caller's own, or the first admin's (`admin`),
            which every owner's runs use where they have none of their own.
        updated_at (datetime.datetime): When the current value was stored.
    """

    created_at: datetime.datetime
    name: str
    owner: str
    updated_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        name = self.name

        owner = self.owner

        updated_at = self.updated_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "name": name,
                "owner": owner,
                "updated_at": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = isoparse(d.pop("created_at"))

        name = d.pop("name")

        owner = d.pop("owner")

        updated_at = isoparse(d.pop("updated_at"))

        secret_info = cls(
            created_at=created_at,
            name=name,
            owner=owner,
            updated_at=updated_at,
        )

        secret_info.additional_properties = d
        return secret_info

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
