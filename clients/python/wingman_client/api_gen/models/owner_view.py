from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="OwnerView")


@_attrs_define
class OwnerView:
    """An owner's quota and where it stands now.

    Attributes:
        owner (str):
        queued_runs (int): The owner's runs queued now.
        spent_today_usd (float): What the owner's runs spent today (UTC), in US dollars.
        max_cost_usd_per_day (float | None | Unset): The most US dollars the owner's runs may spend in a day (UTC); no
            limit when absent.
        max_queued_runs (int | None | Unset): The most runs of the owner that may be queued at once; no limit when
            absent.
        max_running_runs (int | None | Unset): The most runs of the owner that may be running at once; no limit when
            absent.
    """

    owner: str
    queued_runs: int
    spent_today_usd: float
    max_cost_usd_per_day: float | None | Unset = UNSET
    max_queued_runs: int | None | Unset = UNSET
    max_running_runs: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        owner = self.owner

        queued_runs = self.queued_runs

        spent_today_usd = self.spent_today_usd

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
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "owner": owner,
                "queued_runs": queued_runs,
                "spent_today_usd": spent_today_usd,
            }
        )
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
        owner = d.pop("owner")

        queued_runs = d.pop("queued_runs")

        spent_today_usd = d.pop("spent_today_usd")

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

        owner_view = cls(
            owner=owner,
            queued_runs=queued_runs,
            spent_today_usd=spent_today_usd,
            max_cost_usd_per_day=max_cost_usd_per_day,
            max_queued_runs=max_queued_runs,
            max_running_runs=max_running_runs,
        )

        owner_view.additional_properties = d
        return owner_view

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
