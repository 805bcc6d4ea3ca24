from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, Union, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="Quota")


@_attrs_define
class Quota:
    """What an owner may use. A field left out is no limit.

    Attributes:
        max_cost_usd_per_day (float | None | Unset): The most US dollars the owner's runs may spend in a day (UTC):
            checked before each inference, like an agent's `max_cost_usd`.
        max_queued_runs (int | None | Unset): The most runs of the owner that may be queued at once: a submission
            that would queue more is a 429 with `Retry-After`.
        max_running_runs (int | None | Unset): The most runs of the owner that may be running at once, across every
            worker and host, like a concurrency key's limit: the rest stay
            queued, holding no worker, and start as the owner's runs end or wait.
    """

    max_cost_usd_per_day: float | None | Unset = UNSET
    max_queued_runs: int | None | Unset = UNSET
    max_running_runs: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        max_cost_usd_per_day: float | None | Unset
        if isinstance(self.max_cost_usd_per_day, Unset):
            max_cost_usd_per_day = UNSET
        else:
            max_cost_usd_per_day = self.max_cost_usd_per_day

        max_queued_runs: int | None | Unset
        if isinstance(self.max_queued_runs, Unset):
            max_queued_runs = UNSET
        else:
            max_queued_runs = self.max_queued_runs

        max_running_runs: int | None | Unset
        if isinstance(self.max_running_runs, Unset):
            max_running_runs = UNSET
        else:
            max_running_runs = self.max_running_runs

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if max_cost_usd_per_day is not UNSET:
            field_dict["max_cost_usd_per_day"] = max_cost_usd_per_day
        if max_queued_runs is not UNSET:
            field_dict["max_queued_runs"] = max_queued_runs
        if max_running_runs is not UNSET:
            field_dict["max_running_runs"] = max_running_runs

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_max_cost_usd_per_day(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[float, None, Unset], data)

        max_cost_usd_per_day = _parse_max_cost_usd_per_day(
            d.pop("max_cost_usd_per_day", UNSET)
        )

        def _parse_max_queued_runs(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[int, None, Unset], data)

        max_queued_runs = _parse_max_queued_runs(d.pop("max_queued_runs", UNSET))

        def _parse_max_running_runs(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[int, None, Unset], data)

        max_running_runs = _parse_max_running_runs(d.pop("max_running_runs", UNSET))

        quota = cls(
            max_cost_usd_per_day=max_cost_usd_per_day,
            max_queued_runs=max_queued_runs,
            max_running_runs=max_running_runs,
        )

        return quota
