from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, Union, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="Price")


@_attrs_define
class Price:
    """The price of one model, in US dollars per million tokens.

    It (de)serializes as `{"input", "output", "cache_read"?, "cache_write"?}`,
    which is both the pricing file's entry and a catalogue model's `cost`, so
    one type carries a price everywhere. Serde does not check that prices are
    non-negative: input from users goes through [`Price::parse`] first.

        Attributes:
            input_ (float):
            output (float):
            cache_read (float | None | Unset): Input read from the prompt cache; the input price when not given.
            cache_write (float | None | Unset): Input written to the prompt cache; the input price when not given.
    """

    input_: float
    output: float
    cache_read: float | None | Unset = UNSET
    cache_write: float | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        input_ = self.input_

        output = self.output

        cache_read: float | None | Unset
        if isinstance(self.cache_read, Unset):
            cache_read = UNSET
        else:
            cache_read = self.cache_read

        cache_write: float | None | Unset
        if isinstance(self.cache_write, Unset):
            cache_write = UNSET
        else:
            cache_write = self.cache_write

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "input": input_,
                "output": output,
            }
        )
        if cache_read is not UNSET:
            field_dict["cache_read"] = cache_read
        if cache_write is not UNSET:
            field_dict["cache_write"] = cache_write

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        input_ = d.pop("input")

        output = d.pop("output")

        def _parse_cache_read(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[float, None, Unset], data)

        cache_read = _parse_cache_read(d.pop("cache_read", UNSET))

        def _parse_cache_write(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[float, None, Unset], data)

        cache_write = _parse_cache_write(d.pop("cache_write", UNSET))

        price = cls(
            input_=input_,
            output=output,
            cache_read=cache_read,
            cache_write=cache_write,
        )

        return price
