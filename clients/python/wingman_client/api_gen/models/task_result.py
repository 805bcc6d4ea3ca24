from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.run_status import RunStatus, check_run_status
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.usage import Usage


T = TypeVar("T", bound="TaskResult")


@_attrs_define
class TaskResult:
    """A task's result: the original API's fields (`task_index`, `worker_name`,
    `response`, `steps`, `data`, `error`) and Wingman's (`run_id`,
    `session_id`, `status`, `usage`). Written in the transaction that ends the
    task, so it exists exactly once.

        Attributes:
            data (Any): The task's `data`, passed through untouched (`null` when it had none).
            response (str): The final answer's text (empty while there is none).
            run_id (str):
            session_id (None | str):
            status (RunStatus): The life-cycle state of a run.
            steps (int):
            task_index (int):
            usage (Usage): Token counts and cost of one inference or of a whole run.

                `input_tokens` counts the input tokens that were neither read from nor
                written to a prompt cache; the cache counts are separate, so a price per
                kind of token applies to each count as it is. Fields that are zero or
                unknown are left out of the JSON, and read back as zero or unknown.
            worker_name (str): `worker-<task_index>`, as the original API named a task's worker.
            error (None | str | Unset): Why the task failed.
    """

    data: Any
    response: str
    run_id: str
    session_id: None | str
    status: RunStatus
    steps: int
    task_index: int
    usage: Usage
    worker_name: str
    error: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = self.data

        response = self.response

        run_id = self.run_id

        session_id: None | str
        session_id = self.session_id

        status: str = self.status

        steps = self.steps

        task_index = self.task_index

        usage = self.usage.to_dict()

        worker_name = self.worker_name

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "data": data,
                "response": response,
                "run_id": run_id,
                "session_id": session_id,
                "status": status,
                "steps": steps,
                "task_index": task_index,
                "usage": usage,
                "worker_name": worker_name,
            }
        )
        if error is not UNSET:
            field_dict["error"] = error

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.usage import Usage  # noqa: PLC0415

        d = dict(src_dict)
        data = d.pop("data")

        response = d.pop("response")

        run_id = d.pop("run_id")

        def _parse_session_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(Union[None, str], data)

        session_id = _parse_session_id(d.pop("session_id"))

        status = check_run_status(d.pop("status"))

        steps = d.pop("steps")

        task_index = d.pop("task_index")

        usage = Usage.from_dict(d.pop("usage"))

        worker_name = d.pop("worker_name")

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        error = _parse_error(d.pop("error", UNSET))

        task_result = cls(
            data=data,
            response=response,
            run_id=run_id,
            session_id=session_id,
            status=status,
            steps=steps,
            task_index=task_index,
            usage=usage,
            worker_name=worker_name,
            error=error,
        )

        task_result.additional_properties = d
        return task_result

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
