from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, Union, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="ProviderLimits")


@_attrs_define
class ProviderLimits:
    """A credential's or an agent's declared limits: requests and tokens a
    minute, and requests in flight at once. Every worker on every host
    shares them through one budget in the database.

        Attributes:
            max_concurrent (int | None | Unset): Requests in flight at once.
            requests_per_minute (int | None | Unset): Requests a minute, spread evenly (a burst of half a second's share at
                most).
            tokens_per_minute (int | None | Unset): Tokens a minute, counted on an estimate of the prompt before the call
                and corrected by the usage the provider reports after it.
    """

    max_concurrent: int | None | Unset = UNSET
    requests_per_minute: int | None | Unset = UNSET
    tokens_per_minute: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        max_concurrent: int | None | Unset
        if isinstance(self.max_concurrent, Unset):
            max_concurrent = UNSET
        else:
            max_concurrent = self.max_concurrent

        requests_per_minute: int | None | Unset
        if isinstance(self.requests_per_minute, Unset):
            requests_per_minute = UNSET
        else:
            requests_per_minute = self.requests_per_minute

        tokens_per_minute: int | None | Unset
        if isinstance(self.tokens_per_minute, Unset):
            tokens_per_minute = UNSET
        else:
            tokens_per_minute = self.tokens_per_minute

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if max_concurrent is not UNSET:
            field_dict["max_concurrent"] = max_concurrent
        if requests_per_minute is not UNSET:
            field_dict["requests_per_minute"] = requests_per_minute
        if tokens_per_minute is not UNSET:
            field_dict["tokens_per_minute"] = tokens_per_minute

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_max_concurrent(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[int, None, Unset], data)

        max_concurrent = _parse_max_concurrent(d.pop("max_concurrent", UNSET))

        def _parse_requests_per_minute(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[int, None, Unset], data)

        requests_per_minute = _parse_requests_per_minute(
            d.pop("requests_per_minute", UNSET)
        )

        def _parse_tokens_per_minute(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[int, None, Unset], data)

        tokens_per_minute = _parse_tokens_per_minute(d.pop("tokens_per_minute", UNSET))

        provider_limits = cls(
            max_concurrent=max_concurrent,
            requests_per_minute=requests_per_minute,
            tokens_per_minute=tokens_per_minute,
        )

        return provider_limits
