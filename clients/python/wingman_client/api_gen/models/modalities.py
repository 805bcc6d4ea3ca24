from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="Modalities")


@_attrs_define
class Modalities:
    """The kinds of content a model reads and writes (`text`, `image`, `pdf`, …).

    Attributes:
        input_ (list[str]): What the model reads.
        output (list[str]): What the model writes.
    """

    input_: list[str]
    output: list[str]

    def to_dict(self) -> dict[str, Any]:
        input_ = self.input_

        output = self.output

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "input": input_,
                "output": output,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        input_ = cast(list[str], d.pop("input"))

        output = cast(list[str], d.pop("output"))

        modalities = cls(
            input_=input_,
            output=output,
        )

        return modalities
