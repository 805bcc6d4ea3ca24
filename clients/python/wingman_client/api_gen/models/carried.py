from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.concurrency import Concurrency


T = TypeVar("T", bound="Carried")


@_attrs_define
class Carried:
    """What every run carries, whoever made it: set once where the work came
    in (the one door, `crate::submit`), and passed unchanged from a run to
    every run it makes (fleet tasks, formation nodes, sub-agents' runs).
    A run is made with one ([`RunInput::new`]): there is no run without it.

        Attributes:
            concurrency (Concurrency | None | Unset):
            owner (str | Unset): Whose runs they are: the submitter's (a message's: its session's
                owner's). Set by the server, never by a client; not written for the
                first admin, which an input that names none stands for.
            priority (int | Unset): From -10 to 10, higher first (0 when not given): claims take the
                highest first, then the oldest, among runs at the head of their
                session, so it orders sessions, never one session's messages.
            traceparent (None | str | Unset): The W3C `traceparent` its spans are made under, the same for every
                attempt (`crate::otel`).
    """

    concurrency: Concurrency | None | Unset = UNSET
    owner: str | Unset = UNSET
    priority: int | Unset = UNSET
    traceparent: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.concurrency import Concurrency  # noqa: PLC0415

        concurrency: dict[str, Any] | None | Unset
        if isinstance(self.concurrency, Unset):
            concurrency = UNSET
        elif isinstance(self.concurrency, Concurrency):
            concurrency = self.concurrency.to_dict()
        else:
            concurrency = self.concurrency

        owner = self.owner

        priority = self.priority

        traceparent: None | str | Unset
        if isinstance(self.traceparent, Unset):
            traceparent = UNSET
        else:
            traceparent = self.traceparent

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if concurrency is not UNSET:
            field_dict["concurrency"] = concurrency
        if owner is not UNSET:
            field_dict["owner"] = owner
        if priority is not UNSET:
            field_dict["priority"] = priority
        if traceparent is not UNSET:
            field_dict["traceparent"] = traceparent

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.concurrency import Concurrency  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_concurrency(data: object) -> Concurrency | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                concurrency_type_0 = Concurrency.from_dict(data)

                return concurrency_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[Concurrency, None, Unset], data)

        concurrency = _parse_concurrency(d.pop("concurrency", UNSET))

        owner = d.pop("owner", UNSET)

        priority = d.pop("priority", UNSET)

        def _parse_traceparent(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        traceparent = _parse_traceparent(d.pop("traceparent", UNSET))

        carried = cls(
            concurrency=concurrency,
            owner=owner,
            priority=priority,
            traceparent=traceparent,
        )

        carried.additional_properties = d
        return carried

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
