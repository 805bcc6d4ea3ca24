from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.run_status import RunStatus, check_run_status
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.approval import Approval
    from ..models.blocking_tool_call import BlockingToolCall
    from ..models.usage import Usage


T = TypeVar("T", bound="MessageResult")


@_attrs_define
class MessageResult:
    """The answer of `?wait=true`: the original API's blocking answer with the
    run's ID and status.

        Attributes:
            response (str): The final answer's text (empty while there is none).
            run_id (str):
            status (RunStatus): The life-cycle state of a run.
            steps (int):
            tool_calls (list[BlockingToolCall]):
            usage (Usage): Token counts and cost of one inference or of a whole run.

                `input_tokens` counts the input tokens that were neither read from nor
                written to a prompt cache; the cache counts are separate, so a price per
                kind of token applies to each count as it is. Fields that are zero or
                unknown are left out of the JSON, and read back as zero or unknown.
            approval (Approval | None | Unset):
            error (None | str | Unset): Why the run failed.
            tool_calls_requested (Approval | None | Unset):
    """

    response: str
    run_id: str
    status: RunStatus
    steps: int
    tool_calls: list[BlockingToolCall]
    usage: Usage
    approval: Approval | None | Unset = UNSET
    error: None | str | Unset = UNSET
    tool_calls_requested: Approval | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.approval import Approval  # noqa: PLC0415

        response = self.response

        run_id = self.run_id

        status: str = self.status

        steps = self.steps

        tool_calls = []
        for tool_calls_item_data in self.tool_calls:
            tool_calls_item = tool_calls_item_data.to_dict()
            tool_calls.append(tool_calls_item)

        usage = self.usage.to_dict()

        approval: dict[str, Any] | None | Unset
        if isinstance(self.approval, Unset):
            approval = UNSET
        elif isinstance(self.approval, Approval):
            approval = self.approval.to_dict()
        else:
            approval = self.approval

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        tool_calls_requested: dict[str, Any] | None | Unset
        if isinstance(self.tool_calls_requested, Unset):
            tool_calls_requested = UNSET
        elif isinstance(self.tool_calls_requested, Approval):
            tool_calls_requested = self.tool_calls_requested.to_dict()
        else:
            tool_calls_requested = self.tool_calls_requested

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "response": response,
                "run_id": run_id,
                "status": status,
                "steps": steps,
                "tool_calls": tool_calls,
                "usage": usage,
            }
        )
        if approval is not UNSET:
            field_dict["approval"] = approval
        if error is not UNSET:
            field_dict["error"] = error
        if tool_calls_requested is not UNSET:
            field_dict["tool_calls_requested"] = tool_calls_requested

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.approval import Approval  # noqa: PLC0415
        from ..models.blocking_tool_call import BlockingToolCall  # noqa: PLC0415
        from ..models.usage import Usage  # noqa: PLC0415

        d = dict(src_dict)
        response = d.pop("response")

        run_id = d.pop("run_id")

        status = check_run_status(d.pop("status"))

        steps = d.pop("steps")

        tool_calls = []
        _tool_calls = d.pop("tool_calls")
        for tool_calls_item_data in _tool_calls:
            tool_calls_item = BlockingToolCall.from_dict(tool_calls_item_data)

            tool_calls.append(tool_calls_item)

        usage = Usage.from_dict(d.pop("usage"))

        def _parse_approval(data: object) -> Approval | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                approval_type_0 = Approval.from_dict(data)

                return approval_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[Approval, None, Unset], data)

        approval = _parse_approval(d.pop("approval", UNSET))

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_tool_calls_requested(data: object) -> Approval | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                tool_calls_requested_type_0 = Approval.from_dict(data)

                return tool_calls_requested_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[Approval, None, Unset], data)

        tool_calls_requested = _parse_tool_calls_requested(
            d.pop("tool_calls_requested", UNSET)
        )

        message_result = cls(
            response=response,
            run_id=run_id,
            status=status,
            steps=steps,
            tool_calls=tool_calls,
            usage=usage,
            approval=approval,
            error=error,
            tool_calls_requested=tool_calls_requested,
        )

        message_result.additional_properties = d
        return message_result

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
