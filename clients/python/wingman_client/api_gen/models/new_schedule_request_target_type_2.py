from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="NewScheduleRequestTargetType2")


@_attrs_define
class NewScheduleRequestTargetType2:
    """A formation run of this input

    Attributes:
        formation_id (str):
        input_ (Any): Any JSON without NUL characters in its strings and keys
    """

    formation_id: str
    input_: Any
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        formation_id = self.formation_id

        input_ = self.input_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "formation_id": formation_id,
                "input": input_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        formation_id = d.pop("formation_id")

        input_ = d.pop("input")

        new_schedule_request_target_type_2 = cls(
            formation_id=formation_id,
            input_=input_,
        )

        new_schedule_request_target_type_2.additional_properties = d
        return new_schedule_request_target_type_2

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
