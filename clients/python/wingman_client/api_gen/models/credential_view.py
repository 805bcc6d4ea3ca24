from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from dateutil.parser import isoparse

from ..types import UNSET, Unset

T = TypeVar("T", bound="CredentialView")


@_attrs_define
class CredentialView:
    """A stored credential as answers show it: never the key.

    Attributes:
        configured (bool): Always `true`.
        created_at (datetime.datetime):
        owner (str): Whose key it is: the caller's own, or the first admin's (`admin`),
            shared with every owner that has none of its own.
        type_ (str): Always `api_key`.
        updated_at (datetime.datetime):
        hint (None | str | Unset): The key's last four characters, for keys of 20 characters or more.
    """

    configured: bool
    created_at: datetime.datetime
    owner: str
    type_: str
    updated_at: datetime.datetime
    hint: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        configured = self.configured

        created_at = self.created_at.isoformat()

        owner = self.owner

        type_ = self.type_

        updated_at = self.updated_at.isoformat()

        hint: None | str | Unset
        if isinstance(self.hint, Unset):
            hint = UNSET
        else:
            hint = self.hint

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "configured": configured,
                "created_at": created_at,
                "owner": owner,
                "type": type_,
                "updated_at": updated_at,
            }
        )
        if hint is not UNSET:
            field_dict["hint"] = hint

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        configured = d.pop("configured")

        created_at = isoparse(d.pop("created_at"))

        owner = d.pop("owner")

        type_ = d.pop("type")

        updated_at = isoparse(d.pop("updated_at"))

        def _parse_hint(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        hint = _parse_hint(d.pop("hint", UNSET))

        credential_view = cls(
            configured=configured,
            created_at=created_at,
            owner=owner,
            type_=type_,
            updated_at=updated_at,
            hint=hint,
        )

        credential_view.additional_properties = d
        return credential_view

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
