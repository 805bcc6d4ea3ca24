from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="DayUsage")


@_attrs_define
class DayUsage:
    """What an owner's runs spent in one day (UTC).

    Attributes:
        cache_creation_input_tokens (int):
        cache_read_input_tokens (int):
        cost_usd (float): The priced cost in US dollars; a step whose model has no price adds nothing.
        day (str): The day, `YYYY-MM-DD`.
        input_tokens (int): Input tokens that were neither read from nor written to a prompt cache.
        output_tokens (int):
        runs (int): Runs that ended that day.
    """

    cache_creation_input_tokens: int
    cache_read_input_tokens: int
    cost_usd: float
    day: str
    input_tokens: int
    output_tokens: int
    runs: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cache_creation_input_tokens = self.cache_creation_input_tokens

        cache_read_input_tokens = self.cache_read_input_tokens

        cost_usd = self.cost_usd

        day = self.day

        input_tokens = self.input_tokens

        output_tokens = self.output_tokens

        runs = self.runs

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cache_creation_input_tokens": cache_creation_input_tokens,
                "cache_read_input_tokens": cache_read_input_tokens,
                "cost_usd": cost_usd,
                "day": day,
                "input_tokens": input_tokens,
                "output_tokens": output_tokens,
                "runs": runs,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        cache_creation_input_tokens = d.pop("cache_creation_input_tokens")

        cache_read_input_tokens = d.pop("cache_read_input_tokens")

        cost_usd = d.pop("cost_usd")

        day = d.pop("day")

        input_tokens = d.pop("input_tokens")

        output_tokens = d.pop("output_tokens")

        runs = d.pop("runs")

        day_usage = cls(
            cache_creation_input_tokens=cache_creation_input_tokens,
            cache_read_input_tokens=cache_read_input_tokens,
            cost_usd=cost_usd,
            day=day,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            runs=runs,
        )

        day_usage.additional_properties = d
        return day_usage

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
