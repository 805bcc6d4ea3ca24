from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.offered_tool_input_schema import OfferedToolInputSchema


T = TypeVar("T", bound="OfferedTool")


@_attrs_define
class OfferedTool:
    """One tool a run is offered.

    Attributes:
        description (str): What the model is told it does.
        input_schema (OfferedToolInputSchema): A JSON Schema of its input.
        name (str): The name the model calls it by.
        source (str): `builtin`, `http`, `client` or `mcp`.
    """

    description: str
    input_schema: OfferedToolInputSchema
    name: str
    source: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        description = self.description

        input_schema = self.input_schema.to_dict()

        name = self.name

        source = self.source

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "description": description,
                "input_schema": input_schema,
                "name": name,
                "source": source,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.offered_tool_input_schema import OfferedToolInputSchema  # noqa: PLC0415

        d = dict(src_dict)
        description = d.pop("description")

        input_schema = OfferedToolInputSchema.from_dict(d.pop("input_schema"))

        name = d.pop("name")

        source = d.pop("source")

        offered_tool = cls(
            description=description,
            input_schema=input_schema,
            name=name,
            source=source,
        )

        offered_tool.additional_properties = d
        return offered_tool

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
