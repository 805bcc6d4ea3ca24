from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Guards")


@_attrs_define
class Guards:
    """An agent's guards, each with its default (see docs/api.md).

    Attributes:
        loop_guard (int | Unset): Identical tool calls (same tool, same input) in a row that are not
            run again (default 3; 0 turns the guard off).
        max_cost_usd (float | None | Unset): US dollars the run may spend (its steps' priced cost); the step that
            reaches it fails the run with `budget_exhausted`. No limit when null.
        max_step_output_bytes (int | Unset): Bytes of text, thinking and tool input one answer may stream before
            the run fails with `step_output_exceeded` (default 1048576).
        max_total_tokens (int | None | Unset): Tokens (input, output and cache) the run may use, whatever the
            model's price; the step that reaches it fails the run with
            `budget_exhausted`. No limit when null.
        step_timeout_secs (int | Unset): Seconds an inference step may take before it is abandoned as a
            transient provider failure, retried, then fatal (default 900).
    """

    loop_guard: int | Unset = UNSET
    max_cost_usd: float | None | Unset = UNSET
    max_step_output_bytes: int | Unset = UNSET
    max_total_tokens: int | None | Unset = UNSET
    step_timeout_secs: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        loop_guard = self.loop_guard

        max_cost_usd: float | None | Unset
        if isinstance(self.max_cost_usd, Unset):
            max_cost_usd = UNSET
        else:
            max_cost_usd = self.max_cost_usd

        max_step_output_bytes = self.max_step_output_bytes

        max_total_tokens: int | None | Unset
        if isinstance(self.max_total_tokens, Unset):
            max_total_tokens = UNSET
        else:
            max_total_tokens = self.max_total_tokens

        step_timeout_secs = self.step_timeout_secs

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if loop_guard is not UNSET:
            field_dict["loop_guard"] = loop_guard
        if max_cost_usd is not UNSET:
            field_dict["max_cost_usd"] = max_cost_usd
        if max_step_output_bytes is not UNSET:
            field_dict["max_step_output_bytes"] = max_step_output_bytes
        if max_total_tokens is not UNSET:
            field_dict["max_total_tokens"] = max_total_tokens
        if step_timeout_secs is not UNSET:
            field_dict["step_timeout_secs"] = step_timeout_secs

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        loop_guard = d.pop("loop_guard", UNSET)

        def _parse_max_cost_usd(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[float, None, Unset], data)

        max_cost_usd = _parse_max_cost_usd(d.pop("max_cost_usd", UNSET))

        max_step_output_bytes = d.pop("max_step_output_bytes", UNSET)

        def _parse_max_total_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[int, None, Unset], data)

        max_total_tokens = _parse_max_total_tokens(d.pop("max_total_tokens", UNSET))

        step_timeout_secs = d.pop("step_timeout_secs", UNSET)

        guards = cls(
            loop_guard=loop_guard,
            max_cost_usd=max_cost_usd,
            max_step_output_bytes=max_step_output_bytes,
            max_total_tokens=max_total_tokens,
            step_timeout_secs=step_timeout_secs,
        )

        guards.additional_properties = d
        return guards

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
