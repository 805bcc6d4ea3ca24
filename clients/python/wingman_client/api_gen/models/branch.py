from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from dateutil.parser import isoparse

from ..types import UNSET, Unset

T = TypeVar("T", bound="Branch")


@_attrs_define
class Branch:
    """A history set aside by a rewind, as a session lists it: kept, never
    deleted, and readable with `GET /sessions/{id}?branch=N`.

        Attributes:
            branch (int): Its number: the rewind that set it aside (the first is 1).
            created_at (datetime.datetime): When it was set aside.
            messages (int): How many messages it holds (compaction markers included).
            runs (list[str]): The runs whose messages it holds, oldest first.
            after_run_id (None | str | Unset): The run the session went back to the end of (`null`: its start).
    """

    branch: int
    created_at: datetime.datetime
    messages: int
    runs: list[str]
    after_run_id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        branch = self.branch

        created_at = self.created_at.isoformat()

        messages = self.messages

        runs = self.runs

        after_run_id: None | str | Unset
        if isinstance(self.after_run_id, Unset):
            after_run_id = UNSET
        else:
            after_run_id = self.after_run_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "branch": branch,
                "created_at": created_at,
                "messages": messages,
                "runs": runs,
            }
        )
        if after_run_id is not UNSET:
            field_dict["after_run_id"] = after_run_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        branch = d.pop("branch")

        created_at = isoparse(d.pop("created_at"))

        messages = d.pop("messages")

        runs = cast(list[str], d.pop("runs"))

        def _parse_after_run_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        after_run_id = _parse_after_run_id(d.pop("after_run_id", UNSET))

        branch = cls(
            branch=branch,
            created_at=created_at,
            messages=messages,
            runs=runs,
            after_run_id=after_run_id,
        )

        branch.additional_properties = d
        return branch

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
