from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from dateutil.parser import isoparse

from ..models.worker_status import WorkerStatus, check_worker_status
from ..types import UNSET, Unset

T = TypeVar("T", bound="WorkerInfo")


@_attrs_define
class WorkerInfo:
    """A worker and its lease, as `GET /workers` shows it.

    Attributes:
        id (str): The worker's ID, one per process start.
        name (str): Its name in logs (`wingman worker --name`; `worker-<pid>` by default, `serve-<pid>` for a server's
            own).
        runs (list[str]): The runs it holds (status `running` under its lease), oldest first.
        started_at (datetime.datetime): When it registered.
        status (WorkerStatus): Where a worker's lease stands.
        lease_expires_at (datetime.datetime | None | Unset): When its lease runs out unless renewed (each heartbeat
            pushes it on);
            `null` once it stopped.
    """

    id: str
    name: str
    runs: list[str]
    started_at: datetime.datetime
    status: WorkerStatus
    lease_expires_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        runs = self.runs

        started_at = self.started_at.isoformat()

        status: str = self.status

        lease_expires_at: None | str | Unset
        if isinstance(self.lease_expires_at, Unset):
            lease_expires_at = UNSET
        elif isinstance(self.lease_expires_at, datetime.datetime):
            lease_expires_at = self.lease_expires_at.isoformat()
        else:
            lease_expires_at = self.lease_expires_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "name": name,
                "runs": runs,
                "started_at": started_at,
                "status": status,
            }
        )
        if lease_expires_at is not UNSET:
            field_dict["lease_expires_at"] = lease_expires_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        runs = cast(list[str], d.pop("runs"))

        started_at = isoparse(d.pop("started_at"))

        status = check_worker_status(d.pop("status"))

        def _parse_lease_expires_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                lease_expires_at_type_0 = isoparse(data)

                return lease_expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[datetime.datetime, None, Unset], data)

        lease_expires_at = _parse_lease_expires_at(d.pop("lease_expires_at", UNSET))

        worker_info = cls(
            id=id,
            name=name,
            runs=runs,
            started_at=started_at,
            status=status,
            lease_expires_at=lease_expires_at,
        )

        worker_info.additional_properties = d
        return worker_info

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
