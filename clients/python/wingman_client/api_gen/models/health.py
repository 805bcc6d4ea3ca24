from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.health_services import HealthServices
    from ..models.queue_stats import QueueStats
    from ..models.sandbox_status import SandboxStatus


T = TypeVar("T", bound="Health")


@_attrs_define
class Health:
    """The answer of a server whose database answers.

    Attributes:
        queue (QueueStats): The queue at a glance, as `GET /health` reports it.
        sandbox (SandboxStatus): What this process's tools run with, as start-up and `GET /health` report it.
        services (HealthServices): The services beside the API, by name: `scheduler`, `deliverer`,
            `pruner` (with `--retain-days`), `event-pump`, `quiet-logs`, and each
            embedded worker (`worker-0`, …).
        status (str): `ok`; `degraded` while a service is restarting or the database's
            disk is full (the server answers, but some work waits).
        disk_full_since (None | str | Unset): When a write last found the database's disk full, while no write has
            succeeded since: nothing new is accepted until space is freed.
    """

    queue: QueueStats
    sandbox: SandboxStatus
    services: HealthServices
    status: str
    disk_full_since: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        queue = self.queue.to_dict()

        sandbox = self.sandbox.to_dict()

        services = self.services.to_dict()

        status = self.status

        disk_full_since: None | str | Unset
        if isinstance(self.disk_full_since, Unset):
            disk_full_since = UNSET
        else:
            disk_full_since = self.disk_full_since

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "queue": queue,
                "sandbox": sandbox,
                "services": services,
                "status": status,
            }
        )
        if disk_full_since is not UNSET:
            field_dict["disk_full_since"] = disk_full_since

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.health_services import HealthServices  # noqa: PLC0415
        from ..models.queue_stats import QueueStats  # noqa: PLC0415
        from ..models.sandbox_status import SandboxStatus  # noqa: PLC0415

        d = dict(src_dict)
        queue = QueueStats.from_dict(d.pop("queue"))

        sandbox = SandboxStatus.from_dict(d.pop("sandbox"))

        services = HealthServices.from_dict(d.pop("services"))

        status = d.pop("status")

        def _parse_disk_full_since(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        disk_full_since = _parse_disk_full_since(d.pop("disk_full_since", UNSET))

        health = cls(
            queue=queue,
            sandbox=sandbox,
            services=services,
            status=status,
            disk_full_since=disk_full_since,
        )

        health.additional_properties = d
        return health

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
