from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.fleet_run import FleetRun


T = TypeVar("T", bound="FleetRunPage")


@_attrs_define
class FleetRunPage:
    """A page of fleet runs.

    Attributes:
        fleet_runs (list[FleetRun]): Oldest first.
        next_after (None | str): Pass as `after` for the next page; `null` on the last one.
    """

    fleet_runs: list[FleetRun]
    next_after: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        fleet_runs = []
        for fleet_runs_item_data in self.fleet_runs:
            fleet_runs_item = fleet_runs_item_data.to_dict()
            fleet_runs.append(fleet_runs_item)

        next_after: None | str
        next_after = self.next_after

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "fleet_runs": fleet_runs,
                "next_after": next_after,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.fleet_run import FleetRun  # noqa: PLC0415

        d = dict(src_dict)
        fleet_runs = []
        _fleet_runs = d.pop("fleet_runs")
        for fleet_runs_item_data in _fleet_runs:
            fleet_runs_item = FleetRun.from_dict(fleet_runs_item_data)

            fleet_runs.append(fleet_runs_item)

        def _parse_next_after(data: object) -> None | str:
            if data is None:
                return data
            return cast(Union[None, str], data)

        next_after = _parse_next_after(d.pop("next_after"))

        fleet_run_page = cls(
            fleet_runs=fleet_runs,
            next_after=next_after,
        )

        fleet_run_page.additional_properties = d
        return fleet_run_page

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
