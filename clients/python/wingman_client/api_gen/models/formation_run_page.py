from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.formation_run import FormationRun


T = TypeVar("T", bound="FormationRunPage")


@_attrs_define
class FormationRunPage:
    """A page of formation runs.

    Attributes:
        formation_runs (list[FormationRun]):
        next_after (None | str): Pass as `after` for the next page; `null` on the last one.
    """

    formation_runs: list[FormationRun]
    next_after: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        formation_runs = []
        for formation_runs_item_data in self.formation_runs:
            formation_runs_item = formation_runs_item_data.to_dict()
            formation_runs.append(formation_runs_item)

        next_after: None | str
        next_after = self.next_after

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "formation_runs": formation_runs,
                "next_after": next_after,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.formation_run import FormationRun  # noqa: PLC0415

        d = dict(src_dict)
        formation_runs = []
        _formation_runs = d.pop("formation_runs")
        for formation_runs_item_data in _formation_runs:
            formation_runs_item = FormationRun.from_dict(formation_runs_item_data)

            formation_runs.append(formation_runs_item)

        def _parse_next_after(data: object) -> None | str:
            if data is None:
                return data
            return cast(Union[None, str], data)

        next_after = _parse_next_after(d.pop("next_after"))

        formation_run_page = cls(
            formation_runs=formation_runs,
            next_after=next_after,
        )

        formation_run_page.additional_properties = d
        return formation_run_page

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
