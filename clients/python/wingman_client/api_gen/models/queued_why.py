from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="QueuedWhy")


@_attrs_define
class QueuedWhy:
    """Queued runs by why they are not running yet.

    Attributes:
        fleet_at_cap (int): Fleet tasks behind their fleet's `worker_count`.
        key_at_limit (int): Held: their concurrency key has as many runs running as its limit.
        rate_limited (int): Handed back until their next inference's share of a provider budget
            comes within reach (each holds no worker meanwhile; see `budgets`).
        ready (int): Ready: each waits for a worker with room.
        session_busy (int): Behind an unfinished run of their session, which runs its messages one at a time.
    """

    fleet_at_cap: int
    key_at_limit: int
    rate_limited: int
    ready: int
    session_busy: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        fleet_at_cap = self.fleet_at_cap

        key_at_limit = self.key_at_limit

        rate_limited = self.rate_limited

        ready = self.ready

        session_busy = self.session_busy

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "fleet_at_cap": fleet_at_cap,
                "key_at_limit": key_at_limit,
                "rate_limited": rate_limited,
                "ready": ready,
                "session_busy": session_busy,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        fleet_at_cap = d.pop("fleet_at_cap")

        key_at_limit = d.pop("key_at_limit")

        rate_limited = d.pop("rate_limited")

        ready = d.pop("ready")

        session_busy = d.pop("session_busy")

        queued_why = cls(
            fleet_at_cap=fleet_at_cap,
            key_at_limit=key_at_limit,
            rate_limited=rate_limited,
            ready=ready,
            session_busy=session_busy,
        )

        queued_why.additional_properties = d
        return queued_why

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
