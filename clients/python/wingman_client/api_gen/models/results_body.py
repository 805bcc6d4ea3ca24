from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.client_result import ClientResult


T = TypeVar("T", bound="ResultsBody")


@_attrs_define
class ResultsBody:
    """A result for every call the run waits on.

    Attributes:
        results (list[ClientResult]):
    """

    results: list[ClientResult]

    def to_dict(self) -> dict[str, Any]:
        results = []
        for results_item_data in self.results:
            results_item = results_item_data.to_dict()
            results.append(results_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "results": results,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.client_result import ClientResult  # noqa: PLC0415

        d = dict(src_dict)
        results = []
        _results = d.pop("results")
        for results_item_data in _results:
            results_item = ClientResult.from_dict(results_item_data)

            results.append(results_item)

        results_body = cls(
            results=results,
        )

        return results_body
