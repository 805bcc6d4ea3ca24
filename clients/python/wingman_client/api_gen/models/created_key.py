from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from dateutil.parser import isoparse

from ..models.role import Role, check_role
from ..types import UNSET, Unset

T = TypeVar("T", bound="CreatedKey")


@_attrs_define
class CreatedKey:
    """A key just made: the only answer that holds the key itself.

    Attributes:
        created_at (datetime.datetime):
        hint (str): `…` and the key's last four characters.
        id (str): The key's ID (not the key), to revoke it by.
        key (str): The key: send it as `Authorization: Bearer <key>`. It is shown only here.
        owner (str):
        role (Role): What a key may do.
        expires_at (datetime.datetime | None | Unset):
        name (None | str | Unset):
    """

    created_at: datetime.datetime
    hint: str
    id: str
    key: str
    owner: str
    role: Role
    expires_at: datetime.datetime | None | Unset = UNSET
    name: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        hint = self.hint

        id = self.id

        key = self.key

        owner = self.owner

        role: str = self.role

        expires_at: None | str | Unset
        if isinstance(self.expires_at, Unset):
            expires_at = UNSET
        elif isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "hint": hint,
                "id": id,
                "key": key,
                "owner": owner,
                "role": role,
            }
        )
        if expires_at is not UNSET:
            field_dict["expires_at"] = expires_at
        if name is not UNSET:
            field_dict["name"] = name

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = isoparse(d.pop("created_at"))

        hint = d.pop("hint")

        id = d.pop("id")

        key = d.pop("key")

        owner = d.pop("owner")

        role = check_role(d.pop("role"))

        def _parse_expires_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                expires_at_type_0 = isoparse(data)

                return expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[datetime.datetime, None, Unset], data)

        expires_at = _parse_expires_at(d.pop("expires_at", UNSET))

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        name = _parse_name(d.pop("name", UNSET))

        created_key = cls(
            created_at=created_at,
            hint=hint,
            id=id,
            key=key,
            owner=owner,
            role=role,
            expires_at=expires_at,
            name=name,
        )

        created_key.additional_properties = d
        return created_key

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
