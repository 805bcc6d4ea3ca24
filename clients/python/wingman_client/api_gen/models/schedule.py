from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from dateutil.parser import isoparse

from ..models.overlap import Overlap, check_overlap
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.concurrency import Concurrency
    from ..models.target_type_0 import TargetType0
    from ..models.target_type_1 import TargetType1
    from ..models.target_type_2 import TargetType2


T = TypeVar("T", bound="Schedule")


@_attrs_define
class Schedule:
    """A schedule as stored and shown.

    Attributes:
        created_at (datetime.datetime):
        id (str):
        name (str):
        target (TargetType0 | TargetType1 | TargetType2): What a tick submits.
        updated_at (datetime.datetime):
        concurrency (Concurrency | None | Unset):
        cron (None | str | Unset):
        every (None | str | Unset):
        last_tick_at (None | str | Unset):
        next_tick_at (None | str | Unset): The tick due next (none while paused, or when the pattern never matches
            again).
        overlap (Overlap | Unset): What a schedule does when a tick falls while what its last tick made has
            not ended.
        owner (str | Unset): The owner whose key made it; set by the server, never by a client.
        paused (bool | Unset):
        paused_reason (None | str | Unset): Why a server paused it (its stored rule no longer parsed); none when
            a client paused it, or it runs.
        priority (int | Unset): The priority of what each tick submits (-10 to 10; 0 when not given).
        timezone (None | str | Unset):
        version (int | Unset): 1 when made, one more with each change: what `If-Match` names to
            make a change only over the version read.
    """

    created_at: datetime.datetime
    id: str
    name: str
    target: TargetType0 | TargetType1 | TargetType2
    updated_at: datetime.datetime
    concurrency: Concurrency | None | Unset = UNSET
    cron: None | str | Unset = UNSET
    every: None | str | Unset = UNSET
    last_tick_at: None | str | Unset = UNSET
    next_tick_at: None | str | Unset = UNSET
    overlap: Overlap | Unset = UNSET
    owner: str | Unset = UNSET
    paused: bool | Unset = UNSET
    paused_reason: None | str | Unset = UNSET
    priority: int | Unset = UNSET
    timezone: None | str | Unset = UNSET
    version: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.concurrency import Concurrency  # noqa: PLC0415
        from ..models.target_type_0 import TargetType0  # noqa: PLC0415
        from ..models.target_type_1 import TargetType1  # noqa: PLC0415

        created_at = self.created_at.isoformat()

        id = self.id

        name = self.name

        target: dict[str, Any]
        if isinstance(self.target, TargetType0):
            target = self.target.to_dict()
        elif isinstance(self.target, TargetType1):
            target = self.target.to_dict()
        else:
            target = self.target.to_dict()

        updated_at = self.updated_at.isoformat()

        concurrency: dict[str, Any] | None | Unset
        if isinstance(self.concurrency, Unset):
            concurrency = UNSET
        elif isinstance(self.concurrency, Concurrency):
            concurrency = self.concurrency.to_dict()
        else:
            concurrency = self.concurrency

        cron: None | str | Unset
        if isinstance(self.cron, Unset):
            cron = UNSET
        else:
            cron = self.cron

        every: None | str | Unset
        if isinstance(self.every, Unset):
            every = UNSET
        else:
            every = self.every

        last_tick_at: None | str | Unset
        if isinstance(self.last_tick_at, Unset):
            last_tick_at = UNSET
        else:
            last_tick_at = self.last_tick_at

        next_tick_at: None | str | Unset
        if isinstance(self.next_tick_at, Unset):
            next_tick_at = UNSET
        else:
            next_tick_at = self.next_tick_at

        overlap: str | Unset = UNSET
        if not isinstance(self.overlap, Unset):
            overlap = self.overlap

        owner = self.owner

        paused = self.paused

        paused_reason: None | str | Unset
        if isinstance(self.paused_reason, Unset):
            paused_reason = UNSET
        else:
            paused_reason = self.paused_reason

        priority = self.priority

        timezone: None | str | Unset
        if isinstance(self.timezone, Unset):
            timezone = UNSET
        else:
            timezone = self.timezone

        version = self.version

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "id": id,
                "name": name,
                "target": target,
                "updated_at": updated_at,
            }
        )
        if concurrency is not UNSET:
            field_dict["concurrency"] = concurrency
        if cron is not UNSET:
            field_dict["cron"] = cron
        if every is not UNSET:
            field_dict["every"] = every
        if last_tick_at is not UNSET:
            field_dict["last_tick_at"] = last_tick_at
        if next_tick_at is not UNSET:
            field_dict["next_tick_at"] = next_tick_at
        if overlap is not UNSET:
            field_dict["overlap"] = overlap
        if owner is not UNSET:
            field_dict["owner"] = owner
        if paused is not UNSET:
            field_dict["paused"] = paused
        if paused_reason is not UNSET:
            field_dict["paused_reason"] = paused_reason
        if priority is not UNSET:
            field_dict["priority"] = priority
        if timezone is not UNSET:
            field_dict["timezone"] = timezone
        if version is not UNSET:
            field_dict["version"] = version

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.concurrency import Concurrency  # noqa: PLC0415
        from ..models.target_type_0 import TargetType0  # noqa: PLC0415
        from ..models.target_type_1 import TargetType1  # noqa: PLC0415
        from ..models.target_type_2 import TargetType2  # noqa: PLC0415

        d = dict(src_dict)
        created_at = isoparse(d.pop("created_at"))

        id = d.pop("id")

        name = d.pop("name")

        def _parse_target(data: object) -> TargetType0 | TargetType1 | TargetType2:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_target_type_0 = TargetType0.from_dict(data)

                return componentsschemas_target_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_target_type_1 = TargetType1.from_dict(data)

                return componentsschemas_target_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_target_type_2 = TargetType2.from_dict(data)

            return componentsschemas_target_type_2

        target = _parse_target(d.pop("target"))

        updated_at = isoparse(d.pop("updated_at"))

        def _parse_concurrency(data: object) -> Concurrency | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                concurrency_type_0 = Concurrency.from_dict(data)

                return concurrency_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[Concurrency, None, Unset], data)

        concurrency = _parse_concurrency(d.pop("concurrency", UNSET))

        def _parse_cron(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        cron = _parse_cron(d.pop("cron", UNSET))

        def _parse_every(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        every = _parse_every(d.pop("every", UNSET))

        def _parse_last_tick_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        last_tick_at = _parse_last_tick_at(d.pop("last_tick_at", UNSET))

        def _parse_next_tick_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        next_tick_at = _parse_next_tick_at(d.pop("next_tick_at", UNSET))

        _overlap = d.pop("overlap", UNSET)
        overlap: Overlap | Unset
        if isinstance(_overlap, Unset):
            overlap = UNSET
        else:
            overlap = check_overlap(_overlap)

        owner = d.pop("owner", UNSET)

        paused = d.pop("paused", UNSET)

        def _parse_paused_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        paused_reason = _parse_paused_reason(d.pop("paused_reason", UNSET))

        priority = d.pop("priority", UNSET)

        def _parse_timezone(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        timezone = _parse_timezone(d.pop("timezone", UNSET))

        version = d.pop("version", UNSET)

        schedule = cls(
            created_at=created_at,
            id=id,
            name=name,
            target=target,
            updated_at=updated_at,
            concurrency=concurrency,
            cron=cron,
            every=every,
            last_tick_at=last_tick_at,
            next_tick_at=next_tick_at,
            overlap=overlap,
            owner=owner,
            paused=paused,
            paused_reason=paused_reason,
            priority=priority,
            timezone=timezone,
            version=version,
        )

        schedule.additional_properties = d
        return schedule

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
