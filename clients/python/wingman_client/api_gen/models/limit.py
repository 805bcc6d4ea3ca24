from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="Limit")


@_attrs_define
class Limit:
    """A model's limits in tokens. Zero means unknown: a model known only from
    the price table has no published limit here, and a number that says so
    is easier for clients than a missing object.

        Attributes:
            context (int): The context window: prompt and answer together.
            output (int): The most the model writes in one answer.
    """

    context: int
    output: int

    def to_dict(self) -> dict[str, Any]:
        context = self.context

        output = self.output

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "context": context,
                "output": output,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        context = d.pop("context")

        output = d.pop("output")

        limit = cls(
            context=context,
            output=output,
        )

        return limit
