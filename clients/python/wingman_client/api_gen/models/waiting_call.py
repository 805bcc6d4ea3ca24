from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="WaitingCall")


@_attrs_define
class WaitingCall:
    """A call waiting for a person, as events and answers show it:
    `{"call_id", "name", "input", "reason"?}`.

        Attributes:
            call_id (str):
            input_ (Any):
            name (str):
            reason (None | str | Unset): Why a person is asked when `approve_tools` alone would not ask:
                `repeated_call` for a call the loop guard stopped.
    """

    call_id: str
    input_: Any
    name: str
    reason: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        call_id = self.call_id

        input_ = self.input_

        name = self.name

        reason: None | str | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        else:
            reason = self.reason

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "call_id": call_id,
                "input": input_,
                "name": name,
            }
        )
        if reason is not UNSET:
            field_dict["reason"] = reason

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        call_id = d.pop("call_id")

        input_ = d.pop("input")

        name = d.pop("name")

        def _parse_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        reason = _parse_reason(d.pop("reason", UNSET))

        waiting_call = cls(
            call_id=call_id,
            input_=input_,
            name=name,
            reason=reason,
        )

        waiting_call.additional_properties = d
        return waiting_call

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
