from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from dateutil.parser import isoparse

from ..types import UNSET, Unset

T = TypeVar("T", bound="NextRun")


@_attrs_define
class NextRun:
    """A ready run, as a claim would take it.

    Attributes:
        priority (int):
        queued_at (datetime.datetime): When it was queued.
        run_id (str):
        concurrency_key (None | str | Unset):
    """

    priority: int
    queued_at: datetime.datetime
    run_id: str
    concurrency_key: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        priority = self.priority

        queued_at = self.queued_at.isoformat()

        run_id = self.run_id

        concurrency_key: None | str | Unset
        if isinstance(self.concurrency_key, Unset):
            concurrency_key = UNSET
        else:
            concurrency_key = self.concurrency_key

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "priority": priority,
                "queued_at": queued_at,
                "run_id": run_id,
            }
        )
        if concurrency_key is not UNSET:
            field_dict["concurrency_key"] = concurrency_key

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        priority = d.pop("priority")

        queued_at = isoparse(d.pop("queued_at"))

        run_id = d.pop("run_id")

        def _parse_concurrency_key(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        concurrency_key = _parse_concurrency_key(d.pop("concurrency_key", UNSET))

        next_run = cls(
            priority=priority,
            queued_at=queued_at,
            run_id=run_id,
            concurrency_key=concurrency_key,
        )

        next_run.additional_properties = d
        return next_run

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
