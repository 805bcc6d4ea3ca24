from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, Union, cast

from attrs import define as _attrs_define

from ..models.approve_body_decisions_item_decision import (
    ApproveBodyDecisionsItemDecision,
    check_approve_body_decisions_item_decision,
)
from ..types import UNSET, Unset

T = TypeVar("T", bound="ApproveBodyDecisionsItem")


@_attrs_define
class ApproveBodyDecisionsItem:
    """One decision: `{"call_id", "decision", "input"?, "message"?}`; `message` for `reject` (optional) and `respond`

    Attributes:
        call_id (str):
        decision (ApproveBodyDecisionsItemDecision): `approve`, `edit` (with `input`), `reject` (with `message`,
            optional) or `respond` (with `message`)
        input_ (Any | Unset): Any JSON without NUL characters in its strings and keys
        message (None | str | Unset):
    """

    call_id: str
    decision: ApproveBodyDecisionsItemDecision
    input_: Any | Unset = UNSET
    message: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        call_id = self.call_id

        decision: str = self.decision

        input_ = self.input_

        message: None | str | Unset
        if isinstance(self.message, Unset):
            message = UNSET
        else:
            message = self.message

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "call_id": call_id,
                "decision": decision,
            }
        )
        if input_ is not UNSET:
            field_dict["input"] = input_
        if message is not UNSET:
            field_dict["message"] = message

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        call_id = d.pop("call_id")

        decision = check_approve_body_decisions_item_decision(d.pop("decision"))

        input_ = d.pop("input", UNSET)

        def _parse_message(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        message = _parse_message(d.pop("message", UNSET))

        approve_body_decisions_item = cls(
            call_id=call_id,
            decision=decision,
            input_=input_,
            message=message,
        )

        return approve_body_decisions_item
