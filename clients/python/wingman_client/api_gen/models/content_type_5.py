from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.content_type_5_type import ContentType5Type, check_content_type_5_type
from ..types import UNSET, Unset

T = TypeVar("T", bound="ContentType5")


@_attrs_define
class ContentType5:
    """A compaction marker in a session's history (see [`crate::domain::compaction`]):
    never sent to a provider as it is.

        Attributes:
            first_kept (int): The position of the oldest message still sent: those before it are
                sent as the summary.
            pruned_before (int): Tool results of messages before this position are sent as a stub.
            pruned_results (int): How many tool results this compaction replaced by a stub.
            summarized_messages (int): How many messages this compaction summarized.
            tokens_after (int): And after it.
            tokens_before (int): The prompt's estimated size before the compaction, in tokens.
            type_ (ContentType5Type):
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
    type_: ContentType5Type
    summary: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        first_kept = self.first_kept

        pruned_before = self.pruned_before

        pruned_results = self.pruned_results

        summarized_messages = self.summarized_messages

        tokens_after = self.tokens_after

        tokens_before = self.tokens_before

        type_: str = self.type_

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
                "type": type_,
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

        type_ = check_content_type_5_type(d.pop("type"))

        def _parse_summary(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        summary = _parse_summary(d.pop("summary", UNSET))

        content_type_5 = cls(
            first_kept=first_kept,
            pruned_before=pruned_before,
            pruned_results=pruned_results,
            summarized_messages=summarized_messages,
            tokens_after=tokens_after,
            tokens_before=tokens_before,
            type_=type_,
            summary=summary,
        )

        content_type_5.additional_properties = d
        return content_type_5

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
