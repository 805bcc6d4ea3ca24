from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, Union, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="FleetFields")


@_attrs_define
class FleetFields:
    """The fields a client may set on a fleet. On `PUT`, absent fields keep their value.

    Attributes:
        agent_id (None | str | Unset):
        name (None | str | Unset): Not blank
        shared (bool | None | Unset): Every owner may read it and run it; only its owner or an admin may
            change it. False by default.
        version (int | None | Unset): On `PUT` only: the version the change is made over, as `If-Match`
            names it (a `409` if the fleet is at another).
        work_dir (None | str | Unset): An absolute path that does not contain the database; with --work-root, inside it
        worker_count (int | None | Unset): How many of a fleet run's tasks run at once; 0 (the default) is no cap.
    """

    agent_id: None | str | Unset = UNSET
    name: None | str | Unset = UNSET
    shared: bool | None | Unset = UNSET
    version: int | None | Unset = UNSET
    work_dir: None | str | Unset = UNSET
    worker_count: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        agent_id: None | str | Unset
        if isinstance(self.agent_id, Unset):
            agent_id = UNSET
        else:
            agent_id = self.agent_id

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        shared: bool | None | Unset
        if isinstance(self.shared, Unset):
            shared = UNSET
        else:
            shared = self.shared

        version: int | None | Unset
        if isinstance(self.version, Unset):
            version = UNSET
        else:
            version = self.version

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

        field_dict.update({})
        if agent_id is not UNSET:
            field_dict["agent_id"] = agent_id
        if name is not UNSET:
            field_dict["name"] = name
        if shared is not UNSET:
            field_dict["shared"] = shared
        if version is not UNSET:
            field_dict["version"] = version
        if work_dir is not UNSET:
            field_dict["work_dir"] = work_dir
        if worker_count is not UNSET:
            field_dict["worker_count"] = worker_count

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_agent_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        agent_id = _parse_agent_id(d.pop("agent_id", UNSET))

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        name = _parse_name(d.pop("name", UNSET))

        def _parse_shared(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[bool, None, Unset], data)

        shared = _parse_shared(d.pop("shared", UNSET))

        def _parse_version(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[int, None, Unset], data)

        version = _parse_version(d.pop("version", UNSET))

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

        fleet_fields = cls(
            agent_id=agent_id,
            name=name,
            shared=shared,
            version=version,
            work_dir=work_dir,
            worker_count=worker_count,
        )

        return fleet_fields
