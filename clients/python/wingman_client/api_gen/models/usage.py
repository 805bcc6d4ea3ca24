from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Usage")


@_attrs_define
class Usage:
    """Token counts and cost of one inference or of a whole run.

    `input_tokens` counts the input tokens that were neither read from nor
    written to a prompt cache; the cache counts are separate, so a price per
    kind of token applies to each count as it is. Fields that are zero or
    unknown are left out of the JSON, and read back as zero or unknown.

        Attributes:
            input_tokens (int):
            output_tokens (int):
            cache_creation_input_tokens (int | Unset): Input tokens written to the provider's prompt cache.
            cache_read_input_tokens (int | Unset): Input tokens read from the provider's prompt cache.
            cost_usd (float | None | Unset): The cost in US dollars; absent when the model has no known price.
    """

    input_tokens: int
    output_tokens: int
    cache_creation_input_tokens: int | Unset = UNSET
    cache_read_input_tokens: int | Unset = UNSET
    cost_usd: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        input_tokens = self.input_tokens

        output_tokens = self.output_tokens

        cache_creation_input_tokens = self.cache_creation_input_tokens

        cache_read_input_tokens = self.cache_read_input_tokens

        cost_usd: float | None | Unset
        if isinstance(self.cost_usd, Unset):
            cost_usd = UNSET
        else:
            cost_usd = self.cost_usd

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "input_tokens": input_tokens,
                "output_tokens": output_tokens,
            }
        )
        if cache_creation_input_tokens is not UNSET:
            field_dict["cache_creation_input_tokens"] = cache_creation_input_tokens
        if cache_read_input_tokens is not UNSET:
            field_dict["cache_read_input_tokens"] = cache_read_input_tokens
        if cost_usd is not UNSET:
            field_dict["cost_usd"] = cost_usd

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        input_tokens = d.pop("input_tokens")

        output_tokens = d.pop("output_tokens")

        cache_creation_input_tokens = d.pop("cache_creation_input_tokens", UNSET)

        cache_read_input_tokens = d.pop("cache_read_input_tokens", UNSET)

        def _parse_cost_usd(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[float, None, Unset], data)

        cost_usd = _parse_cost_usd(d.pop("cost_usd", UNSET))

        usage = cls(
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            cache_creation_input_tokens=cache_creation_input_tokens,
            cache_read_input_tokens=cache_read_input_tokens,
            cost_usd=cost_usd,
        )

        usage.additional_properties = d
        return usage

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
