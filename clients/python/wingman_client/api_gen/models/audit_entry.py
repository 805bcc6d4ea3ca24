from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from dateutil.parser import isoparse

from ..models.role import Role, check_role
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.by import By


T = TypeVar("T", bound="AuditEntry")


@_attrs_define
class AuditEntry:
    """One state change made through the API.

    Attributes:
        action (str): The method and route, such as `POST /runs/{id}/approve`.
        at (datetime.datetime): When the request arrived.
        by (By): Who did something through the API, as the events of people's actions
            (`by`) and the audit log name them: the key's owner, and its name and
            ID (neither for the `--auth-token` or a keyless server's local user).
        id (str): A ULID taken when the request arrived: the newest entry has the greatest.
        path (str): The request's path.
        role (Role): What a key may do.
        status (int): The answer's status.
        made (None | str | Unset): The object the change made (the answer's `id`), when it is another
            than `target`: a created agent, a message's run, a key's ID (never the key).
        target (None | str | Unset): The object the path names (its first parameter), if it names one.
    """

    action: str
    at: datetime.datetime
    by: By
    id: str
    path: str
    role: Role
    status: int
    made: None | str | Unset = UNSET
    target: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        action = self.action

        at = self.at.isoformat()

        by = self.by.to_dict()

        id = self.id

        path = self.path

        role: str = self.role

        status = self.status

        made: None | str | Unset
        if isinstance(self.made, Unset):
            made = UNSET
        else:
            made = self.made

        target: None | str | Unset
        if isinstance(self.target, Unset):
            target = UNSET
        else:
            target = self.target

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "action": action,
                "at": at,
                "by": by,
                "id": id,
                "path": path,
                "role": role,
                "status": status,
            }
        )
        if made is not UNSET:
            field_dict["made"] = made
        if target is not UNSET:
            field_dict["target"] = target

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.by import By  # noqa: PLC0415

        d = dict(src_dict)
        action = d.pop("action")

        at = isoparse(d.pop("at"))

        by = By.from_dict(d.pop("by"))

        id = d.pop("id")

        path = d.pop("path")

        role = check_role(d.pop("role"))

        status = d.pop("status")

        def _parse_made(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        made = _parse_made(d.pop("made", UNSET))

        def _parse_target(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        target = _parse_target(d.pop("target", UNSET))

        audit_entry = cls(
            action=action,
            at=at,
            by=by,
            id=id,
            path=path,
            role=role,
            status=status,
            made=made,
            target=target,
        )

        audit_entry.additional_properties = d
        return audit_entry

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
