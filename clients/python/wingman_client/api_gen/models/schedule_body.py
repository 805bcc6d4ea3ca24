from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, Union, cast

from attrs import define as _attrs_define

from ..models.overlap import Overlap, check_overlap
from ..models.schedule_body_timezone_type_0 import (
    ScheduleBodyTimezoneType0,
    check_schedule_body_timezone_type_0,
)
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.concurrency import Concurrency
    from ..models.schedule_body_target_type_0 import ScheduleBodyTargetType0
    from ..models.schedule_body_target_type_1 import ScheduleBodyTargetType1
    from ..models.schedule_body_target_type_2 import ScheduleBodyTargetType2


T = TypeVar("T", bound="ScheduleBody")


@_attrs_define
class ScheduleBody:
    """A schedule's definition: `POST /schedules` and `PUT /schedules/{id}`.

    Attributes:
        name (str): 1 to 200 characters.
        target (ScheduleBodyTargetType0 | ScheduleBodyTargetType1 | ScheduleBodyTargetType2): What each tick submits
        concurrency (Concurrency | None | Unset):
        cron (None | str | Unset):
        every (None | str | Unset):
        overlap (Overlap | Unset): What a schedule does when a tick falls while what its last tick made has
            not ended.
        priority (int | None | Unset): From -10 to 10, higher first (default 0): claims take the highest priority first,
            then the oldest. It orders sessions, never the messages of one session, and every run this one makes carries it
        timezone (None | ScheduleBodyTimezoneType0 | Unset):
        version (int | None | Unset): On `PUT` only: the version the change is made over, as `If-Match`
            names it (a `409` if the schedule is at another).
    """

    name: str
    target: ScheduleBodyTargetType0 | ScheduleBodyTargetType1 | ScheduleBodyTargetType2
    concurrency: Concurrency | None | Unset = UNSET
    cron: None | str | Unset = UNSET
    every: None | str | Unset = UNSET
    overlap: Overlap | Unset = UNSET
    priority: int | None | Unset = UNSET
    timezone: None | ScheduleBodyTimezoneType0 | Unset = UNSET
    version: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.concurrency import Concurrency  # noqa: PLC0415
        from ..models.schedule_body_target_type_0 import ScheduleBodyTargetType0  # noqa: PLC0415
        from ..models.schedule_body_target_type_1 import ScheduleBodyTargetType1  # noqa: PLC0415

        name = self.name

        target: dict[str, Any]
        if isinstance(self.target, ScheduleBodyTargetType0):
            target = self.target.to_dict()
        elif isinstance(self.target, ScheduleBodyTargetType1):
            target = self.target.to_dict()
        else:
            target = self.target.to_dict()

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

        overlap: str | Unset = UNSET
        if not isinstance(self.overlap, Unset):
            overlap = self.overlap

        priority: int | None | Unset
        if isinstance(self.priority, Unset):
            priority = UNSET
        else:
            priority = self.priority

        timezone: None | str | Unset
        if isinstance(self.timezone, Unset):
            timezone = UNSET
        elif isinstance(self.timezone, str):
            timezone = self.timezone
        else:
            timezone = self.timezone

        version: int | None | Unset
        if isinstance(self.version, Unset):
            version = UNSET
        else:
            version = self.version

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
                "target": target,
            }
        )
        if concurrency is not UNSET:
            field_dict["concurrency"] = concurrency
        if cron is not UNSET:
            field_dict["cron"] = cron
        if every is not UNSET:
            field_dict["every"] = every
        if overlap is not UNSET:
            field_dict["overlap"] = overlap
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
        from ..models.schedule_body_target_type_0 import ScheduleBodyTargetType0  # noqa: PLC0415
        from ..models.schedule_body_target_type_1 import ScheduleBodyTargetType1  # noqa: PLC0415
        from ..models.schedule_body_target_type_2 import ScheduleBodyTargetType2  # noqa: PLC0415

        d = dict(src_dict)
        name = d.pop("name")

        def _parse_target(
            data: object,
        ) -> (
            ScheduleBodyTargetType0 | ScheduleBodyTargetType1 | ScheduleBodyTargetType2
        ):
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                target_type_0 = ScheduleBodyTargetType0.from_dict(data)

                return target_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                target_type_1 = ScheduleBodyTargetType1.from_dict(data)

                return target_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            target_type_2 = ScheduleBodyTargetType2.from_dict(data)

            return target_type_2

        target = _parse_target(d.pop("target"))

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

        _overlap = d.pop("overlap", UNSET)
        overlap: Overlap | Unset
        if isinstance(_overlap, Unset):
            overlap = UNSET
        else:
            overlap = check_overlap(_overlap)

        def _parse_priority(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[int, None, Unset], data)

        priority = _parse_priority(d.pop("priority", UNSET))

        def _parse_timezone(data: object) -> None | ScheduleBodyTimezoneType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                timezone_type_0 = check_schedule_body_timezone_type_0(data)

                return timezone_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[None, ScheduleBodyTimezoneType0, Unset], data)

        timezone = _parse_timezone(d.pop("timezone", UNSET))

        def _parse_version(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[int, None, Unset], data)

        version = _parse_version(d.pop("version", UNSET))

        schedule_body = cls(
            name=name,
            target=target,
            concurrency=concurrency,
            cron=cron,
            every=every,
            overlap=overlap,
            priority=priority,
            timezone=timezone,
            version=version,
        )

        return schedule_body
