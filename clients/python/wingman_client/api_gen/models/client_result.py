from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="ClientResult")


@_attrs_define
class ClientResult:
    """A client's result for one call of a client tool: `{"call_id", "output",
    "is_error"?}`.

        Attributes:
            call_id (str): A call of the run's `tool_calls_requested` event.
            output (str): What the model is told the tool answered.
            is_error (bool | Unset): True when the tool failed; the model sees the failure.
    """

    call_id: str
    output: str
    is_error: bool | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        call_id = self.call_id

        output = self.output

        is_error = self.is_error

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "call_id": call_id,
                "output": output,
            }
        )
        if is_error is not UNSET:
            field_dict["is_error"] = is_error

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        call_id = d.pop("call_id")

        output = d.pop("output")

        is_error = d.pop("is_error", UNSET)

        client_result = cls(
            call_id=call_id,
            output=output,
            is_error=is_error,
        )

        return client_result
