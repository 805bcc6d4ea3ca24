from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.approve_body_decisions_item import ApproveBodyDecisionsItem


T = TypeVar("T", bound="ApproveBody")


@_attrs_define
class ApproveBody:
    """A decision for every call the run waits on.

    Attributes:
        decisions (list[ApproveBodyDecisionsItem]): A decision for every call the run waits on
    """

    decisions: list[ApproveBodyDecisionsItem]

    def to_dict(self) -> dict[str, Any]:
        decisions = []
        for decisions_item_data in self.decisions:
            decisions_item = decisions_item_data.to_dict()
            decisions.append(decisions_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "decisions": decisions,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.approve_body_decisions_item import ApproveBodyDecisionsItem  # noqa: PLC0415

        d = dict(src_dict)
        decisions = []
        _decisions = d.pop("decisions")
        for decisions_item_data in _decisions:
            decisions_item = ApproveBodyDecisionsItem.from_dict(decisions_item_data)

            decisions.append(decisions_item)

        approve_body = cls(
            decisions=decisions,
        )

        return approve_body
