from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.tool_call_record_input import ToolCallRecordInput


T = TypeVar("T", bound="ToolCallRecord")


@_attrs_define
class ToolCallRecord:
    """A tool call of a run as `GET /runs/{id}` lists it (`tool_calls`): what the
    model asked for and, once it ran, its result.

        Attributes:
            call_id (str):
            input_ (ToolCallRecordInput):
            is_error (bool | None): `null` while the call has no result.
            name (str): The tool's name.
            output (None | str): The tool's output; `null` while the call has no result.
            step (int): The inference step that asked for it.
    """

    call_id: str
    input_: ToolCallRecordInput
    is_error: bool | None
    name: str
    output: None | str
    step: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        call_id = self.call_id

        input_ = self.input_.to_dict()

        is_error: bool | None
        is_error = self.is_error

        name = self.name

        output: None | str
        output = self.output

        step = self.step

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "call_id": call_id,
                "input": input_,
                "is_error": is_error,
                "name": name,
                "output": output,
                "step": step,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.tool_call_record_input import ToolCallRecordInput  # noqa: PLC0415

        d = dict(src_dict)
        call_id = d.pop("call_id")

        input_ = ToolCallRecordInput.from_dict(d.pop("input"))

        def _parse_is_error(data: object) -> bool | None:
            if data is None:
                return data
            return cast(Union[bool, None], data)

        is_error = _parse_is_error(d.pop("is_error"))

        name = d.pop("name")

        def _parse_output(data: object) -> None | str:
            if data is None:
                return data
            return cast(Union[None, str], data)

        output = _parse_output(d.pop("output"))

        step = d.pop("step")

        tool_call_record = cls(
            call_id=call_id,
            input_=input_,
            is_error=is_error,
            name=name,
            output=output,
            step=step,
        )

        tool_call_record.additional_properties = d
        return tool_call_record

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
