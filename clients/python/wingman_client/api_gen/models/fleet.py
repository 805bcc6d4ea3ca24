from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from dateutil.parser import isoparse

from ..models.fleet_status import FleetStatus, check_fleet_status
from ..types import UNSET, Unset

T = TypeVar("T", bound="Fleet")


@_attrs_define
class Fleet:
    """A fleet: one agent fanned out over many tasks. The definition only; each
    `POST /fleets/{id}/run` makes a fleet run whose tasks are runs.

        Attributes:
            agent_id (str):
            created_at (datetime.datetime):
            id (str):
            name (str):
            updated_at (datetime.datetime):
            worker_count (int): How many of a fleet run's tasks may run at once; 0 is no limit.
            owner (str | Unset): The owner whose key made it; set by the server, never by a client.
            shared (bool | Unset): Every owner may read and use it; only its owner or an admin may change it.
            status (FleetStatus | Unset): Whether a fleet has a fleet run that has not ended, as the original API named it.
            version (int | Unset): 1 when made, one more with each change: what `If-Match` names to
                make a change only over the version read.
            work_dir (None | str | Unset): The default `work_dir` of its tasks; `None` gives each task a directory of its
                own.
    """

    agent_id: str
    created_at: datetime.datetime
    id: str
    name: str
    updated_at: datetime.datetime
    worker_count: int
    owner: str | Unset = UNSET
    shared: bool | Unset = UNSET
    status: FleetStatus | Unset = UNSET
    version: int | Unset = UNSET
    work_dir: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        agent_id = self.agent_id

        created_at = self.created_at.isoformat()

        id = self.id

        name = self.name

        updated_at = self.updated_at.isoformat()

        worker_count = self.worker_count

        owner = self.owner

        shared = self.shared

        status: str | Unset = UNSET
        if not isinstance(self.status, Unset):
            status = self.status

        version = self.version

        work_dir: None | str | Unset
        if isinstance(self.work_dir, Unset):
            work_dir = UNSET
        else:
            work_dir = self.work_dir

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "agent_id": agent_id,
                "created_at": created_at,
                "id": id,
                "name": name,
                "updated_at": updated_at,
                "worker_count": worker_count,
            }
        )
        if owner is not UNSET:
            field_dict["owner"] = owner
        if shared is not UNSET:
            field_dict["shared"] = shared
        if status is not UNSET:
            field_dict["status"] = status
        if version is not UNSET:
            field_dict["version"] = version
        if work_dir is not UNSET:
            field_dict["work_dir"] = work_dir

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        agent_id = d.pop("agent_id")

        created_at = isoparse(d.pop("created_at"))

        id = d.pop("id")

        name = d.pop("name")

        updated_at = isoparse(d.pop("updated_at"))

        worker_count = d.pop("worker_count")

        owner = d.pop("owner", UNSET)

        shared = d.pop("shared", UNSET)

        _status = d.pop("status", UNSET)
        status: FleetStatus | Unset
        if isinstance(_status, Unset):
            status = UNSET
        else:
            status = check_fleet_status(_status)

        version = d.pop("version", UNSET)

        def _parse_work_dir(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        work_dir = _parse_work_dir(d.pop("work_dir", UNSET))

        fleet = cls(
            agent_id=agent_id,
            created_at=created_at,
            id=id,
            name=name,
            updated_at=updated_at,
            worker_count=worker_count,
            owner=owner,
            shared=shared,
            status=status,
            version=version,
            work_dir=work_dir,
        )

        fleet.additional_properties = d
        return fleet

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
