from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.run_status import RunStatus, check_run_status
from ..types import UNSET, Unset

T = TypeVar("T", bound="ChildRun")


@_attrs_define
class ChildRun:
    """A sub-agent's run, as its parent lists it.

    Attributes:
        agent_id (str):
        run_id (str):
        status (RunStatus): The life-cycle state of a run.
        call_id (None | str | Unset): The parent's call it answers.
    """

    agent_id: str
    run_id: str
    status: RunStatus
    call_id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        agent_id = self.agent_id

        run_id = self.run_id

        status: str = self.status

        call_id: None | str | Unset
        if isinstance(self.call_id, Unset):
            call_id = UNSET
        else:
            call_id = self.call_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "agent_id": agent_id,
                "run_id": run_id,
                "status": status,
            }
        )
        if call_id is not UNSET:
            field_dict["call_id"] = call_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        agent_id = d.pop("agent_id")

        run_id = d.pop("run_id")

        status = check_run_status(d.pop("status"))

        def _parse_call_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        call_id = _parse_call_id(d.pop("call_id", UNSET))

        child_run = cls(
            agent_id=agent_id,
            run_id=run_id,
            status=status,
            call_id=call_id,
        )

        child_run.additional_properties = d
        return child_run

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
