from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="NewScheduleRequestTargetType0")


@_attrs_define
class NewScheduleRequestTargetType0:
    """A message to a session, for `agent_id` or the session's agent

    Attributes:
        message (str): Not blank; at most 256 KiB of UTF-8
        session_id (str):
        agent_id (str | Unset):
    """

    message: str
    session_id: str
    agent_id: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        message = self.message

        session_id = self.session_id

        agent_id = self.agent_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "message": message,
                "session_id": session_id,
            }
        )
        if agent_id is not UNSET:
            field_dict["agent_id"] = agent_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        message = d.pop("message")

        session_id = d.pop("session_id")

        agent_id = d.pop("agent_id", UNSET)

        new_schedule_request_target_type_0 = cls(
            message=message,
            session_id=session_id,
            agent_id=agent_id,
        )

        new_schedule_request_target_type_0.additional_properties = d
        return new_schedule_request_target_type_0

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
