from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from dateutil.parser import isoparse

from ..types import UNSET, Unset

T = TypeVar("T", bound="Event")


@_attrs_define
class Event:
    """An event of a log; besides these fields, those of its type (docs/api.md)

    Attributes:
        at (datetime.datetime):
        seq (int): 1, 2, 3, … within the log
        type_ (str): run_queued, text_delta, tool_call, done, result, …
        fleet_run_id (str | Unset): The fleet run's ID, in a fleet run's log
        formation_run_id (str | Unset): The formation run's ID, in a formation run's log
        run_id (str | Unset): The run's ID (a fleet run's `result` names its task's run)
    """

    at: datetime.datetime
    seq: int
    type_: str
    fleet_run_id: str | Unset = UNSET
    formation_run_id: str | Unset = UNSET
    run_id: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        at = self.at.isoformat()

        seq = self.seq

        type_ = self.type_

        fleet_run_id = self.fleet_run_id

        formation_run_id = self.formation_run_id

        run_id = self.run_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "at": at,
                "seq": seq,
                "type": type_,
            }
        )
        if fleet_run_id is not UNSET:
            field_dict["fleet_run_id"] = fleet_run_id
        if formation_run_id is not UNSET:
            field_dict["formation_run_id"] = formation_run_id
        if run_id is not UNSET:
            field_dict["run_id"] = run_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        at = isoparse(d.pop("at"))

        seq = d.pop("seq")

        type_ = d.pop("type")

        fleet_run_id = d.pop("fleet_run_id", UNSET)

        formation_run_id = d.pop("formation_run_id", UNSET)

        run_id = d.pop("run_id", UNSET)

        event = cls(
            at=at,
            seq=seq,
            type_=type_,
            fleet_run_id=fleet_run_id,
            formation_run_id=formation_run_id,
            run_id=run_id,
        )

        event.additional_properties = d
        return event

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
