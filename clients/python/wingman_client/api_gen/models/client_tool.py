from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.client_tool_input_schema import ClientToolInputSchema


T = TypeVar("T", bound="ClientTool")


@_attrs_define
class ClientTool:
    """A tool the client runs: a step that calls one parks the run until the
    client posts the results.

        Attributes:
            input_schema (ClientToolInputSchema): A JSON Schema of its input object.
            name (str): The name the model calls it by: `[A-Za-z0-9_-]`, at most 64 characters.
            description (str | Unset): What the tool does, for the model.
    """

    input_schema: ClientToolInputSchema
    name: str
    description: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        input_schema = self.input_schema.to_dict()

        name = self.name

        description = self.description

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "input_schema": input_schema,
                "name": name,
            }
        )
        if description is not UNSET:
            field_dict["description"] = description

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.client_tool_input_schema import ClientToolInputSchema  # noqa: PLC0415

        d = dict(src_dict)
        input_schema = ClientToolInputSchema.from_dict(d.pop("input_schema"))

        name = d.pop("name")

        description = d.pop("description", UNSET)

        client_tool = cls(
            input_schema=input_schema,
            name=name,
            description=description,
        )

        return client_tool
