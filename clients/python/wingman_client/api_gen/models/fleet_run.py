from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from dateutil.parser import isoparse

from ..models.fleet_run_status import FleetRunStatus, check_fleet_run_status
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.fleet_progress import FleetProgress


T = TypeVar("T", bound="FleetRun")


@_attrs_define
class FleetRun:
    """A fleet run: one submission of tasks to a fleet. Its tasks are runs of
    kind `fleet_task`, each in a session of its own.

        Attributes:
            agent_id (str):
            cancel_requested (bool): True once `POST /fleet-runs/{id}/cancel` was accepted.
            created_at (datetime.datetime):
            fleet_id (str):
            id (str):
            owner (str): The owner whose key submitted it, and of its tasks.
            progress (FleetProgress): How far a fleet run has got: counts kept as its tasks end, so reading
                them reads one row, whatever the number of tasks.
            status (FleetRunStatus): The life-cycle state of a fleet run.
            updated_at (datetime.datetime):
            worker_count (int): The fleet's cap when the run was submitted: tasks running at once, 0 for no cap.
            finished_at (datetime.datetime | None | Unset):
            started_at (datetime.datetime | None | Unset):
    """

    agent_id: str
    cancel_requested: bool
    created_at: datetime.datetime
    fleet_id: str
    id: str
    owner: str
    progress: FleetProgress
    status: FleetRunStatus
    updated_at: datetime.datetime
    worker_count: int
    finished_at: datetime.datetime | None | Unset = UNSET
    started_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        agent_id = self.agent_id

        cancel_requested = self.cancel_requested

        created_at = self.created_at.isoformat()

        fleet_id = self.fleet_id

        id = self.id

        owner = self.owner

        progress = self.progress.to_dict()

        status: str = self.status

        updated_at = self.updated_at.isoformat()

        worker_count = self.worker_count

        finished_at: None | str | Unset
        if isinstance(self.finished_at, Unset):
            finished_at = UNSET
        elif isinstance(self.finished_at, datetime.datetime):
            finished_at = self.finished_at.isoformat()
        else:
            finished_at = self.finished_at

        started_at: None | str | Unset
        if isinstance(self.started_at, Unset):
            started_at = UNSET
        elif isinstance(self.started_at, datetime.datetime):
            started_at = self.started_at.isoformat()
        else:
            started_at = self.started_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "agent_id": agent_id,
                "cancel_requested": cancel_requested,
                "created_at": created_at,
                "fleet_id": fleet_id,
                "id": id,
                "owner": owner,
                "progress": progress,
                "status": status,
                "updated_at": updated_at,
                "worker_count": worker_count,
            }
        )
        if finished_at is not UNSET:
            field_dict["finished_at"] = finished_at
        if started_at is not UNSET:
            field_dict["started_at"] = started_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.fleet_progress import FleetProgress  # noqa: PLC0415

        d = dict(src_dict)
        agent_id = d.pop("agent_id")

        cancel_requested = d.pop("cancel_requested")

        created_at = isoparse(d.pop("created_at"))

        fleet_id = d.pop("fleet_id")

        id = d.pop("id")

        owner = d.pop("owner")

        progress = FleetProgress.from_dict(d.pop("progress"))

        status = check_fleet_run_status(d.pop("status"))

        updated_at = isoparse(d.pop("updated_at"))

        worker_count = d.pop("worker_count")

        def _parse_finished_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                finished_at_type_0 = isoparse(data)

                return finished_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[datetime.datetime, None, Unset], data)

        finished_at = _parse_finished_at(d.pop("finished_at", UNSET))

        def _parse_started_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                started_at_type_0 = isoparse(data)

                return started_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[datetime.datetime, None, Unset], data)

        started_at = _parse_started_at(d.pop("started_at", UNSET))

        fleet_run = cls(
            agent_id=agent_id,
            cancel_requested=cancel_requested,
            created_at=created_at,
            fleet_id=fleet_id,
            id=id,
            owner=owner,
            progress=progress,
            status=status,
            updated_at=updated_at,
            worker_count=worker_count,
            finished_at=finished_at,
            started_at=started_at,
        )

        fleet_run.additional_properties = d
        return fleet_run

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
