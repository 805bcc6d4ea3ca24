from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Marker")


@_attrs_define
class Marker:
    """A compaction, as its session's history keeps it: a message holding one
    [`Content::Compaction`] block, appended where the compaction happened.
    Positions count the session's messages from 0, markers left out.

        Attributes:
            first_kept (int): The position of the oldest message still sent: those before it are
                sent as the summary.
            pruned_before (int): Tool results of messages before this position are sent as a stub.
            pruned_results (int): How many tool results this compaction replaced by a stub.
            summarized_messages (int): How many messages this compaction summarized.
            tokens_after (int): And after it.
            tokens_before (int): The prompt's estimated size before the compaction, in tokens.
            summary (None | str | Unset): What the messages before `first_kept` said (earlier summaries
                included); absent when this compaction only pruned, and the summary
                before it, if any, still stands.
    """

    first_kept: int
    pruned_before: int
    pruned_results: int
    summarized_messages: int
    tokens_after: int
    tokens_before: int
    summary: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        first_kept = self.first_kept

        pruned_before = self.pruned_before

        pruned_results = self.pruned_results

        summarized_messages = self.summarized_messages

        tokens_after = self.tokens_after

        tokens_before = self.tokens_before

        summary: None | str | Unset
        if isinstance(self.summary, Unset):
            summary = UNSET
        else:
            summary = self.summary

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "first_kept": first_kept,
                "pruned_before": pruned_before,
                "pruned_results": pruned_results,
                "summarized_messages": summarized_messages,
                "tokens_after": tokens_after,
                "tokens_before": tokens_before,
            }
        )
        if summary is not UNSET:
            field_dict["summary"] = summary

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        first_kept = d.pop("first_kept")

        pruned_before = d.pop("pruned_before")

        pruned_results = d.pop("pruned_results")

        summarized_messages = d.pop("summarized_messages")

        tokens_after = d.pop("tokens_after")

        tokens_before = d.pop("tokens_before")

        def _parse_summary(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        summary = _parse_summary(d.pop("summary", UNSET))

        marker = cls(
            first_kept=first_kept,
            pruned_before=pruned_before,
            pruned_results=pruned_results,
            summarized_messages=summarized_messages,
            tokens_after=tokens_after,
            tokens_before=tokens_before,
            summary=summary,
        )

        marker.additional_properties = d
        return marker

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
