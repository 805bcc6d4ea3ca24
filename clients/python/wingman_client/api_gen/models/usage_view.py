from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.day_usage import DayUsage


T = TypeVar("T", bound="UsageView")


@_attrs_define
class UsageView:
    """What an owner's runs used over a span of days.

    Attributes:
        days (list[DayUsage]): Each day with any use, the oldest first.
        from_ (str): The first day, `YYYY-MM-DD`.
        owner (str):
        to (str): The last day, `YYYY-MM-DD`.
        total (DayUsage): What an owner's runs spent in one day (UTC).
    """

    days: list[DayUsage]
    from_: str
    owner: str
    to: str
    total: DayUsage
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        days = []
        for days_item_data in self.days:
            days_item = days_item_data.to_dict()
            days.append(days_item)

        from_ = self.from_

        owner = self.owner

        to = self.to

        total = self.total.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "days": days,
                "from": from_,
                "owner": owner,
                "to": to,
                "total": total,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.day_usage import DayUsage  # noqa: PLC0415

        d = dict(src_dict)
        days = []
        _days = d.pop("days")
        for days_item_data in _days:
            days_item = DayUsage.from_dict(days_item_data)

            days.append(days_item)

        from_ = d.pop("from")

        owner = d.pop("owner")

        to = d.pop("to")

        total = DayUsage.from_dict(d.pop("total"))

        usage_view = cls(
            days=days,
            from_=from_,
            owner=owner,
            to=to,
            total=total,
        )

        usage_view.additional_properties = d
        return usage_view

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
