from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.tick import Tick


T = TypeVar("T", bound="Ticks")


@_attrs_define
class Ticks:
    """A schedule's ticks.

    Attributes:
        ticks (list[Tick]): Newest first: each with the run (`kind: "run"`), fleet run or
            formation run it submitted, or why it was skipped.
    """

    ticks: list[Tick]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        ticks = []
        for ticks_item_data in self.ticks:
            ticks_item = ticks_item_data.to_dict()
            ticks.append(ticks_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "ticks": ticks,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.tick import Tick  # noqa: PLC0415

        d = dict(src_dict)
        ticks = []
        _ticks = d.pop("ticks")
        for ticks_item_data in _ticks:
            ticks_item = Tick.from_dict(ticks_item_data)

            ticks.append(ticks_item)

        ticks = cls(
            ticks=ticks,
        )

        ticks.additional_properties = d
        return ticks

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
