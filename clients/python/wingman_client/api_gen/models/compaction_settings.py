from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, Union, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="CompactionSettings")


@_attrs_define
class CompactionSettings:
    """The agent's `compaction` settings.

    Attributes:
        enabled (bool | Unset): Whether runs compact by themselves (default true). A compaction asked
            for with `POST /sessions/{id}/compact` runs either way.
        keep_recent_tokens (int | Unset): Tokens of the newest conversation sent as they are, neither pruned
            nor summarized (default 20000; at most half of what fits).
        model (None | str | Unset): The model that writes summaries, of the agent's provider; the agent's
            own model when absent.
        reserve_tokens (int | Unset): Tokens of the window kept free for the answer: a prompt past the
            window less these is compacted first (default 16384).
    """

    enabled: bool | Unset = UNSET
    keep_recent_tokens: int | Unset = UNSET
    model: None | str | Unset = UNSET
    reserve_tokens: int | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        enabled = self.enabled

        keep_recent_tokens = self.keep_recent_tokens

        model: None | str | Unset
        if isinstance(self.model, Unset):
            model = UNSET
        else:
            model = self.model

        reserve_tokens = self.reserve_tokens

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if enabled is not UNSET:
            field_dict["enabled"] = enabled
        if keep_recent_tokens is not UNSET:
            field_dict["keep_recent_tokens"] = keep_recent_tokens
        if model is not UNSET:
            field_dict["model"] = model
        if reserve_tokens is not UNSET:
            field_dict["reserve_tokens"] = reserve_tokens

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        enabled = d.pop("enabled", UNSET)

        keep_recent_tokens = d.pop("keep_recent_tokens", UNSET)

        def _parse_model(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        model = _parse_model(d.pop("model", UNSET))

        reserve_tokens = d.pop("reserve_tokens", UNSET)

        compaction_settings = cls(
            enabled=enabled,
            keep_recent_tokens=keep_recent_tokens,
            model=model,
            reserve_tokens=reserve_tokens,
        )

        return compaction_settings
