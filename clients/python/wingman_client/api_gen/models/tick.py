from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from dateutil.parser import isoparse

from ..types import UNSET, Unset

T = TypeVar("T", bound="Tick")


@_attrs_define
class Tick:
    """A tick that fell: what it submitted, or that it was skipped.

    Attributes:
        tick_at (datetime.datetime):
        id (None | str | Unset): The run, fleet run or formation run it submitted.
        kind (None | str | Unset): `run`, `fleet_run` or `formation_run`; none when skipped.
        skipped (None | str | Unset): Why nothing was submitted.
    """

    tick_at: datetime.datetime
    id: None | str | Unset = UNSET
    kind: None | str | Unset = UNSET
    skipped: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        tick_at = self.tick_at.isoformat()

        id: None | str | Unset
        if isinstance(self.id, Unset):
            id = UNSET
        else:
            id = self.id

        kind: None | str | Unset
        if isinstance(self.kind, Unset):
            kind = UNSET
        else:
            kind = self.kind

        skipped: None | str | Unset
        if isinstance(self.skipped, Unset):
            skipped = UNSET
        else:
            skipped = self.skipped

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "tick_at": tick_at,
            }
        )
        if id is not UNSET:
            field_dict["id"] = id
        if kind is not UNSET:
            field_dict["kind"] = kind
        if skipped is not UNSET:
            field_dict["skipped"] = skipped

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        tick_at = isoparse(d.pop("tick_at"))

        def _parse_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        id = _parse_id(d.pop("id", UNSET))

        def _parse_kind(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        kind = _parse_kind(d.pop("kind", UNSET))

        def _parse_skipped(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        skipped = _parse_skipped(d.pop("skipped", UNSET))

        tick = cls(
            tick_at=tick_at,
            id=id,
            kind=kind,
            skipped=skipped,
        )

        tick.additional_properties = d
        return tick

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
