from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from dateutil.parser import isoparse

from ..models.role import Role, check_role
from ..types import UNSET, Unset

T = TypeVar("T", bound="NewKey")


@_attrs_define
class NewKey:
    """The body of `POST /keys`.

    Attributes:
        owner (str): Whose work the key opens: 1 to 64 letters, digits, `.`, `_`, `-` or `@`.
        role (Role): What a key may do.
        expires_at (datetime.datetime | None | Unset): When the key stops working by itself; in the future.
        name (None | str | Unset): A name to tell the key by: 1 to 100 characters, none a control character.
    """

    owner: str
    role: Role
    expires_at: datetime.datetime | None | Unset = UNSET
    name: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
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

        field_dict.update(
            {
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

        new_key = cls(
            owner=owner,
            role=role,
            expires_at=expires_at,
            name=name,
        )

        return new_key
