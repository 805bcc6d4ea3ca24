from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from dateutil.parser import isoparse

from ..types import UNSET, Unset

T = TypeVar("T", bound="Attempt")


@_attrs_define
class Attempt:
    """One attempt that finished.

    Attributes:
        at (datetime.datetime):
        attempt (int): 1 for the first attempt.
        duration_ms (int):
        error (None | str | Unset): Why the attempt failed (a timeout, a refused connection, a non-2xx
            status, a refused address).
        status_code (int | None | Unset): The answer's status, when one came.
    """

    at: datetime.datetime
    attempt: int
    duration_ms: int
    error: None | str | Unset = UNSET
    status_code: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        at = self.at.isoformat()

        attempt = self.attempt

        duration_ms = self.duration_ms

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        status_code: int | None | Unset
        if isinstance(self.status_code, Unset):
            status_code = UNSET
        else:
            status_code = self.status_code

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "at": at,
                "attempt": attempt,
                "duration_ms": duration_ms,
            }
        )
        if error is not UNSET:
            field_dict["error"] = error
        if status_code is not UNSET:
            field_dict["status_code"] = status_code

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        at = isoparse(d.pop("at"))

        attempt = d.pop("attempt")

        duration_ms = d.pop("duration_ms")

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_status_code(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[int, None, Unset], data)

        status_code = _parse_status_code(d.pop("status_code", UNSET))

        attempt = cls(
            at=at,
            attempt=attempt,
            duration_ms=duration_ms,
            error=error,
            status_code=status_code,
        )

        attempt.additional_properties = d
        return attempt

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
