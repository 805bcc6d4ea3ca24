from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from dateutil.parser import isoparse

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.provider_limits import ProviderLimits


T = TypeVar("T", bound="BudgetView")


@_attrs_define
class BudgetView:
    """A provider budget as the queue shows it.

    Attributes:
        in_flight (int): Calls in flight now.
        name (str): A credential's name (`openai`, `openai:label`) or `agent:<id>`.
        waiting (int): Inferences waiting for their share now.
        declared (None | ProviderLimits | Unset):
        learned_requests_per_minute (int | None | Unset): Requests a minute learned from the provider's headers or found
            by its 429s.
        learned_tokens_per_minute (int | None | Unset): Tokens a minute learned from the provider's headers.
        paused_until (datetime.datetime | None | Unset): When a pause (a 429 or 529) ends, while it lasts.
        requests_per_minute (int | None | Unset): The limits in force: the tighter of declared and learned.
        tokens_per_minute (int | None | Unset):
    """

    in_flight: int
    name: str
    waiting: int
    declared: None | ProviderLimits | Unset = UNSET
    learned_requests_per_minute: int | None | Unset = UNSET
    learned_tokens_per_minute: int | None | Unset = UNSET
    paused_until: datetime.datetime | None | Unset = UNSET
    requests_per_minute: int | None | Unset = UNSET
    tokens_per_minute: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.provider_limits import ProviderLimits  # noqa: PLC0415

        in_flight = self.in_flight

        name = self.name

        waiting = self.waiting

        declared: dict[str, Any] | None | Unset
        if isinstance(self.declared, Unset):
            declared = UNSET
        elif isinstance(self.declared, ProviderLimits):
            declared = self.declared.to_dict()
        else:
            declared = self.declared

        learned_requests_per_minute: int | None | Unset
        if isinstance(self.learned_requests_per_minute, Unset):
            learned_requests_per_minute = UNSET
        else:
            learned_requests_per_minute = self.learned_requests_per_minute

        learned_tokens_per_minute: int | None | Unset
        if isinstance(self.learned_tokens_per_minute, Unset):
            learned_tokens_per_minute = UNSET
        else:
            learned_tokens_per_minute = self.learned_tokens_per_minute

        paused_until: None | str | Unset
        if isinstance(self.paused_until, Unset):
            paused_until = UNSET
        elif isinstance(self.paused_until, datetime.datetime):
            paused_until = self.paused_until.isoformat()
        else:
            paused_until = self.paused_until

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
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "in_flight": in_flight,
                "name": name,
                "waiting": waiting,
            }
        )
        if declared is not UNSET:
            field_dict["declared"] = declared
        if learned_requests_per_minute is not UNSET:
            field_dict["learned_requests_per_minute"] = learned_requests_per_minute
        if learned_tokens_per_minute is not UNSET:
            field_dict["learned_tokens_per_minute"] = learned_tokens_per_minute
        if paused_until is not UNSET:
            field_dict["paused_until"] = paused_until
        if requests_per_minute is not UNSET:
            field_dict["requests_per_minute"] = requests_per_minute
        if tokens_per_minute is not UNSET:
            field_dict["tokens_per_minute"] = tokens_per_minute

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.provider_limits import ProviderLimits  # noqa: PLC0415

        d = dict(src_dict)
        in_flight = d.pop("in_flight")

        name = d.pop("name")

        waiting = d.pop("waiting")

        def _parse_declared(data: object) -> None | ProviderLimits | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                declared_type_0 = ProviderLimits.from_dict(data)

                return declared_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[None, ProviderLimits, Unset], data)

        declared = _parse_declared(d.pop("declared", UNSET))

        def _parse_learned_requests_per_minute(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[int, None, Unset], data)

        learned_requests_per_minute = _parse_learned_requests_per_minute(
            d.pop("learned_requests_per_minute", UNSET)
        )

        def _parse_learned_tokens_per_minute(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[int, None, Unset], data)

        learned_tokens_per_minute = _parse_learned_tokens_per_minute(
            d.pop("learned_tokens_per_minute", UNSET)
        )

        def _parse_paused_until(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                paused_until_type_0 = isoparse(data)

                return paused_until_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[datetime.datetime, None, Unset], data)

        paused_until = _parse_paused_until(d.pop("paused_until", UNSET))

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

        budget_view = cls(
            in_flight=in_flight,
            name=name,
            waiting=waiting,
            declared=declared,
            learned_requests_per_minute=learned_requests_per_minute,
            learned_tokens_per_minute=learned_tokens_per_minute,
            paused_until=paused_until,
            requests_per_minute=requests_per_minute,
            tokens_per_minute=tokens_per_minute,
        )

        budget_view.additional_properties = d
        return budget_view

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
