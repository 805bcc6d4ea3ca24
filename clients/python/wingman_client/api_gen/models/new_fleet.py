from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, Union, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="NewFleet")


@_attrs_define
class NewFleet:
    """A new fleet: `name` and `agent_id` are required, the rest optional.

    Attributes:
        agent_id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        name (str): Not blank
        shared (bool | None | Unset): Every owner may read it and run it; only its owner or an admin may
            change it. False by default.
        work_dir (None | str | Unset): An absolute path that does not contain the database; with --work-root, inside it
        worker_count (int | None | Unset): How many of a fleet run's tasks run at once; 0 (the default) is no cap.
    """

    agent_id: str
    name: str
    shared: bool | None | Unset = UNSET
    work_dir: None | str | Unset = UNSET
    worker_count: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        agent_id = self.agent_id

        name = self.name

        shared: bool | None | Unset
        if isinstance(self.shared, Unset):
            shared = UNSET
        else:
            shared = self.shared

        work_dir: None | str | Unset
        if isinstance(self.work_dir, Unset):
            work_dir = UNSET
        else:
            work_dir = self.work_dir

        worker_count: int | None | Unset
        if isinstance(self.worker_count, Unset):
            worker_count = UNSET
        else:
            worker_count = self.worker_count

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "agent_id": agent_id,
                "name": name,
            }
        )
        if shared is not UNSET:
            field_dict["shared"] = shared
        if work_dir is not UNSET:
            field_dict["work_dir"] = work_dir
        if worker_count is not UNSET:
            field_dict["worker_count"] = worker_count

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        agent_id = d.pop("agent_id")

        name = d.pop("name")

        def _parse_shared(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[bool, None, Unset], data)

        shared = _parse_shared(d.pop("shared", UNSET))

        def _parse_work_dir(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        work_dir = _parse_work_dir(d.pop("work_dir", UNSET))

        def _parse_worker_count(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[int, None, Unset], data)

        worker_count = _parse_worker_count(d.pop("worker_count", UNSET))

        new_fleet = cls(
            agent_id=agent_id,
            name=name,
            shared=shared,
            work_dir=work_dir,
            worker_count=worker_count,
        )

        return new_fleet
