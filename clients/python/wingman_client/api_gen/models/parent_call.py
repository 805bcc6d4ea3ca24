from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ParentCall")


@_attrs_define
class ParentCall:
    """Where a child run came from: its parent's call, and how deep it nests.

    Attributes:
        call_id (str): The call this run answers.
        depth (int): 1 for a child of a run submitted by a client, 2 for its child, …
        max_depth (int): The deepest nesting the tree allows (its root agent's `max_depth`).
        run_id (str): The run whose call started this one.
        step (int): The parent's step that made the call.
        tool (str): The tool the parent called (`agent__<name>`).
    """

    call_id: str
    depth: int
    max_depth: int
    run_id: str
    step: int
    tool: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        call_id = self.call_id

        depth = self.depth

        max_depth = self.max_depth

        run_id = self.run_id

        step = self.step

        tool = self.tool

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "call_id": call_id,
                "depth": depth,
                "max_depth": max_depth,
                "run_id": run_id,
                "step": step,
                "tool": tool,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        call_id = d.pop("call_id")

        depth = d.pop("depth")

        max_depth = d.pop("max_depth")

        run_id = d.pop("run_id")

        step = d.pop("step")

        tool = d.pop("tool")

        parent_call = cls(
            call_id=call_id,
            depth=depth,
            max_depth=max_depth,
            run_id=run_id,
            step=step,
            tool=tool,
        )

        parent_call.additional_properties = d
        return parent_call

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
