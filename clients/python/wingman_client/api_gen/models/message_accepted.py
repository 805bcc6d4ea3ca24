from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from dateutil.parser import isoparse

from ..models.run_status import RunStatus, check_run_status
from ..types import UNSET, Unset

T = TypeVar("T", bound="MessageAccepted")


@_attrs_define
class MessageAccepted:
    """The answer of an accepted message: the run it made.

    Attributes:
        agent_id (str):
        created_at (datetime.datetime):
        run_id (str):
        status (RunStatus): The life-cycle state of a run.
        session_id (None | str | Unset):
    """

    agent_id: str
    created_at: datetime.datetime
    run_id: str
    status: RunStatus
    session_id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        agent_id = self.agent_id

        created_at = self.created_at.isoformat()

        run_id = self.run_id

        status: str = self.status

        session_id: None | str | Unset
        if isinstance(self.session_id, Unset):
            session_id = UNSET
        else:
            session_id = self.session_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "agent_id": agent_id,
                "created_at": created_at,
                "run_id": run_id,
                "status": status,
            }
        )
        if session_id is not UNSET:
            field_dict["session_id"] = session_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        agent_id = d.pop("agent_id")

        created_at = isoparse(d.pop("created_at"))

        run_id = d.pop("run_id")

        status = check_run_status(d.pop("status"))

        def _parse_session_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        session_id = _parse_session_id(d.pop("session_id", UNSET))

        message_accepted = cls(
            agent_id=agent_id,
            created_at=created_at,
            run_id=run_id,
            status=status,
            session_id=session_id,
        )

        message_accepted.additional_properties = d
        return message_accepted

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
