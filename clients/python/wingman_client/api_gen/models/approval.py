from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.waiting_call import WaitingCall


T = TypeVar("T", bound="Approval")


@_attrs_define
class Approval:
    """What a waiting run asks about: a person's decision (its
    `approval_requested` event) or its client's results (`tool_calls_requested`).

        Attributes:
            calls (list[WaitingCall]):
            step (int):
    """

    calls: list[WaitingCall]
    step: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        calls = []
        for calls_item_data in self.calls:
            calls_item = calls_item_data.to_dict()
            calls.append(calls_item)

        step = self.step

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "calls": calls,
                "step": step,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.waiting_call import WaitingCall  # noqa: PLC0415

        d = dict(src_dict)
        calls = []
        _calls = d.pop("calls")
        for calls_item_data in _calls:
            calls_item = WaitingCall.from_dict(calls_item_data)

            calls.append(calls_item)

        step = d.pop("step")

        approval = cls(
            calls=calls,
            step=step,
        )

        approval.additional_properties = d
        return approval

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
