from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="QueueStats")


@_attrs_define
class QueueStats:
    """The queue at a glance, as `GET /health` reports it.

    Attributes:
        queued (int): Runs waiting for a worker (including those waiting for their session's turn).
        running (int): Runs a worker holds now.
        workers (int): Workers whose lease is live.
    """

    queued: int
    running: int
    workers: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        queued = self.queued

        running = self.running

        workers = self.workers

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "queued": queued,
                "running": running,
                "workers": workers,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        queued = d.pop("queued")

        running = d.pop("running")

        workers = d.pop("workers")

        queue_stats = cls(
            queued=queued,
            running=running,
            workers=workers,
        )

        queue_stats.additional_properties = d
        return queue_stats

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
