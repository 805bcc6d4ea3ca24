from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="Subagent")


@_attrs_define
class Subagent:
    """A sub-agent an agent may call: `{"agent_id", "name"?, "description"?}`.

    Attributes:
        agent_id (str): The agent whose runs answer the calls.
        description (str | Unset): What the model is told the sub-agent does.
        name (str | Unset): The tool is `agent__<name>`: `[A-Za-z0-9_-]`, without `__`, at most
            57 characters. Defaults to the agent's own name when that is one.
    """

    agent_id: str
    description: str | Unset = UNSET
    name: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        agent_id = self.agent_id

        description = self.description

        name = self.name

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "agent_id": agent_id,
            }
        )
        if description is not UNSET:
            field_dict["description"] = description
        if name is not UNSET:
            field_dict["name"] = name

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        agent_id = d.pop("agent_id")

        description = d.pop("description", UNSET)

        name = d.pop("name", UNSET)

        subagent = cls(
            agent_id=agent_id,
            description=description,
            name=name,
        )

        return subagent
