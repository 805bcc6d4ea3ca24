from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from dateutil.parser import isoparse

from ..models.run_kind import RunKind, check_run_kind
from ..models.run_status import RunStatus, check_run_status
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.run_input import RunInput
    from ..models.tool_call_record import ToolCallRecord
    from ..models.usage import Usage


T = TypeVar("T", bound="Run")


@_attrs_define
class Run:
    """A run as stored: the job row.

    Attributes:
        agent_id (str):
        attempt (int):
        created_at (datetime.datetime):
        id (str):
        input_ (RunInput): What the submitter asked the run to do.
        kind (RunKind): What a run does: answer a session message, or one task of a fleet run.
        owner (str): The owner of what made it: a message's session, a fleet run, a
            formation run, a parent run or a schedule.
        status (RunStatus): The life-cycle state of a run.
        steps (int):
        tool_calls (list[ToolCallRecord]): Every tool call of the run, in order, with its result.
        updated_at (datetime.datetime):
        usage (Usage): Token counts and cost of one inference or of a whole run.

            `input_tokens` counts the input tokens that were neither read from nor
            written to a prompt cache; the cache counts are separate, so a price per
            kind of token applies to each count as it is. Fields that are zero or
            unknown are left out of the JSON, and read back as zero or unknown.
        error (None | str | Unset):
        finished_at (datetime.datetime | None | Unset):
        fleet_run_id (None | str | Unset):
        formation_run_id (None | str | Unset): An agent node's run: its formation run (`input.node` names the node).
        parent_call_id (None | str | Unset): A sub-agent's run: the parent's call it answers.
        parent_run_id (None | str | Unset): A sub-agent's run (kind `subagent`): the run whose call started it.
        response (None | str | Unset):
        session_id (None | str | Unset):
        started_at (datetime.datetime | None | Unset):
        task_index (int | None | Unset):
        trace_id (None | str | Unset): The trace its spans are in (`input.traceparent`'s trace ID).
    """

    agent_id: str
    attempt: int
    created_at: datetime.datetime
    id: str
    input_: RunInput
    kind: RunKind
    owner: str
    status: RunStatus
    steps: int
    tool_calls: list[ToolCallRecord]
    updated_at: datetime.datetime
    usage: Usage
    error: None | str | Unset = UNSET
    finished_at: datetime.datetime | None | Unset = UNSET
    fleet_run_id: None | str | Unset = UNSET
    formation_run_id: None | str | Unset = UNSET
    parent_call_id: None | str | Unset = UNSET
    parent_run_id: None | str | Unset = UNSET
    response: None | str | Unset = UNSET
    session_id: None | str | Unset = UNSET
    started_at: datetime.datetime | None | Unset = UNSET
    task_index: int | None | Unset = UNSET
    trace_id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        agent_id = self.agent_id

        attempt = self.attempt

        created_at = self.created_at.isoformat()

        id = self.id

        input_ = self.input_.to_dict()

        kind: str = self.kind

        owner = self.owner

        status: str = self.status

        steps = self.steps

        tool_calls = []
        for tool_calls_item_data in self.tool_calls:
            tool_calls_item = tool_calls_item_data.to_dict()
            tool_calls.append(tool_calls_item)

        updated_at = self.updated_at.isoformat()

        usage = self.usage.to_dict()

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        finished_at: None | str | Unset
        if isinstance(self.finished_at, Unset):
            finished_at = UNSET
        elif isinstance(self.finished_at, datetime.datetime):
            finished_at = self.finished_at.isoformat()
        else:
            finished_at = self.finished_at

        fleet_run_id: None | str | Unset
        if isinstance(self.fleet_run_id, Unset):
            fleet_run_id = UNSET
        else:
            fleet_run_id = self.fleet_run_id

        formation_run_id: None | str | Unset
        if isinstance(self.formation_run_id, Unset):
            formation_run_id = UNSET
        else:
            formation_run_id = self.formation_run_id

        parent_call_id: None | str | Unset
        if isinstance(self.parent_call_id, Unset):
            parent_call_id = UNSET
        else:
            parent_call_id = self.parent_call_id

        parent_run_id: None | str | Unset
        if isinstance(self.parent_run_id, Unset):
            parent_run_id = UNSET
        else:
            parent_run_id = self.parent_run_id

        response: None | str | Unset
        if isinstance(self.response, Unset):
            response = UNSET
        else:
            response = self.response

        session_id: None | str | Unset
        if isinstance(self.session_id, Unset):
            session_id = UNSET
        else:
            session_id = self.session_id

        started_at: None | str | Unset
        if isinstance(self.started_at, Unset):
            started_at = UNSET
        elif isinstance(self.started_at, datetime.datetime):
            started_at = self.started_at.isoformat()
        else:
            started_at = self.started_at

        task_index: int | None | Unset
        if isinstance(self.task_index, Unset):
            task_index = UNSET
        else:
            task_index = self.task_index

        trace_id: None | str | Unset
        if isinstance(self.trace_id, Unset):
            trace_id = UNSET
        else:
            trace_id = self.trace_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "agent_id": agent_id,
                "attempt": attempt,
                "created_at": created_at,
                "id": id,
                "input": input_,
                "kind": kind,
                "owner": owner,
                "status": status,
                "steps": steps,
                "tool_calls": tool_calls,
                "updated_at": updated_at,
                "usage": usage,
            }
        )
        if error is not UNSET:
            field_dict["error"] = error
        if finished_at is not UNSET:
            field_dict["finished_at"] = finished_at
        if fleet_run_id is not UNSET:
            field_dict["fleet_run_id"] = fleet_run_id
        if formation_run_id is not UNSET:
            field_dict["formation_run_id"] = formation_run_id
        if parent_call_id is not UNSET:
            field_dict["parent_call_id"] = parent_call_id
        if parent_run_id is not UNSET:
            field_dict["parent_run_id"] = parent_run_id
        if response is not UNSET:
            field_dict["response"] = response
        if session_id is not UNSET:
            field_dict["session_id"] = session_id
        if started_at is not UNSET:
            field_dict["started_at"] = started_at
        if task_index is not UNSET:
            field_dict["task_index"] = task_index
        if trace_id is not UNSET:
            field_dict["trace_id"] = trace_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.run_input import RunInput  # noqa: PLC0415
        from ..models.tool_call_record import ToolCallRecord  # noqa: PLC0415
        from ..models.usage import Usage  # noqa: PLC0415

        d = dict(src_dict)
        agent_id = d.pop("agent_id")

        attempt = d.pop("attempt")

        created_at = isoparse(d.pop("created_at"))

        id = d.pop("id")

        input_ = RunInput.from_dict(d.pop("input"))

        kind = check_run_kind(d.pop("kind"))

        owner = d.pop("owner")

        status = check_run_status(d.pop("status"))

        steps = d.pop("steps")

        tool_calls = []
        _tool_calls = d.pop("tool_calls")
        for tool_calls_item_data in _tool_calls:
            tool_calls_item = ToolCallRecord.from_dict(tool_calls_item_data)

            tool_calls.append(tool_calls_item)

        updated_at = isoparse(d.pop("updated_at"))

        usage = Usage.from_dict(d.pop("usage"))

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_finished_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                finished_at_type_0 = isoparse(data)

                return finished_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[datetime.datetime, None, Unset], data)

        finished_at = _parse_finished_at(d.pop("finished_at", UNSET))

        def _parse_fleet_run_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        fleet_run_id = _parse_fleet_run_id(d.pop("fleet_run_id", UNSET))

        def _parse_formation_run_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        formation_run_id = _parse_formation_run_id(d.pop("formation_run_id", UNSET))

        def _parse_parent_call_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        parent_call_id = _parse_parent_call_id(d.pop("parent_call_id", UNSET))

        def _parse_parent_run_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        parent_run_id = _parse_parent_run_id(d.pop("parent_run_id", UNSET))

        def _parse_response(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        response = _parse_response(d.pop("response", UNSET))

        def _parse_session_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        session_id = _parse_session_id(d.pop("session_id", UNSET))

        def _parse_started_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                started_at_type_0 = isoparse(data)

                return started_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[datetime.datetime, None, Unset], data)

        started_at = _parse_started_at(d.pop("started_at", UNSET))

        def _parse_task_index(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[int, None, Unset], data)

        task_index = _parse_task_index(d.pop("task_index", UNSET))

        def _parse_trace_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        trace_id = _parse_trace_id(d.pop("trace_id", UNSET))

        run = cls(
            agent_id=agent_id,
            attempt=attempt,
            created_at=created_at,
            id=id,
            input_=input_,
            kind=kind,
            owner=owner,
            status=status,
            steps=steps,
            tool_calls=tool_calls,
            updated_at=updated_at,
            usage=usage,
            error=error,
            finished_at=finished_at,
            fleet_run_id=fleet_run_id,
            formation_run_id=formation_run_id,
            parent_call_id=parent_call_id,
            parent_run_id=parent_run_id,
            response=response,
            session_id=session_id,
            started_at=started_at,
            task_index=task_index,
            trace_id=trace_id,
        )

        run.additional_properties = d
        return run

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
