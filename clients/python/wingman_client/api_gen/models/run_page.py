from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.run import Run


T = TypeVar("T", bound="RunPage")


@_attrs_define
class RunPage:
    """A page of runs.

    Attributes:
        next_after (None | str): Pass as `after` for the next page; `null` on the last one.
        runs (list[Run]): In submission order.
    """

    next_after: None | str
    runs: list[Run]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        next_after: None | str
        next_after = self.next_after

        runs = []
        for runs_item_data in self.runs:
            runs_item = runs_item_data.to_dict()
            runs.append(runs_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "next_after": next_after,
                "runs": runs,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.run import Run  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_next_after(data: object) -> None | str:
            if data is None:
                return data
            return cast(Union[None, str], data)

        next_after = _parse_next_after(d.pop("next_after"))

        runs = []
        _runs = d.pop("runs")
        for runs_item_data in _runs:
            runs_item = Run.from_dict(runs_item_data)

            runs.append(runs_item)

        run_page = cls(
            next_after=next_after,
            runs=runs,
        )

        run_page.additional_properties = d
        return run_page

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
