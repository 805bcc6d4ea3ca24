from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, Union, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.node_args_type_0 import NodeArgsType0


T = TypeVar("T", bound="Node")


@_attrs_define
class Node:
    """A node: `{"id", "agent_id"}`, `{"id", "fleet_id"}` or `{"id", "function", "args"?}`.

    Attributes:
        id (str): `[A-Za-z0-9_-]`, 1 to 64 characters, unique in the formation.
        agent_id (None | str | Unset): An agent node: the agent that answers its input as a message.
        args (NodeArgsType0 | None | Unset): A function's arguments (`json_path`: `{"path"}`; `join`:
            `{"separator"?}`; `template`: `{"template"}`).
        fleet_id (None | str | Unset): A fleet node: the fleet that runs one task per item of its input.
        function (None | str | Unset): A function node: `split_lines`, `json_path`, `join` or `template`.
    """

    id: str
    agent_id: None | str | Unset = UNSET
    args: NodeArgsType0 | None | Unset = UNSET
    fleet_id: None | str | Unset = UNSET
    function: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.node_args_type_0 import NodeArgsType0  # noqa: PLC0415

        id = self.id

        agent_id: None | str | Unset
        if isinstance(self.agent_id, Unset):
            agent_id = UNSET
        else:
            agent_id = self.agent_id

        args: dict[str, Any] | None | Unset
        if isinstance(self.args, Unset):
            args = UNSET
        elif isinstance(self.args, NodeArgsType0):
            args = self.args.to_dict()
        else:
            args = self.args

        fleet_id: None | str | Unset
        if isinstance(self.fleet_id, Unset):
            fleet_id = UNSET
        else:
            fleet_id = self.fleet_id

        function: None | str | Unset
        if isinstance(self.function, Unset):
            function = UNSET
        else:
            function = self.function

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
            }
        )
        if agent_id is not UNSET:
            field_dict["agent_id"] = agent_id
        if args is not UNSET:
            field_dict["args"] = args
        if fleet_id is not UNSET:
            field_dict["fleet_id"] = fleet_id
        if function is not UNSET:
            field_dict["function"] = function

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.node_args_type_0 import NodeArgsType0  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        def _parse_agent_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        agent_id = _parse_agent_id(d.pop("agent_id", UNSET))

        def _parse_args(data: object) -> NodeArgsType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                args_type_0 = NodeArgsType0.from_dict(data)

                return args_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[NodeArgsType0, None, Unset], data)

        args = _parse_args(d.pop("args", UNSET))

        def _parse_fleet_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        fleet_id = _parse_fleet_id(d.pop("fleet_id", UNSET))

        def _parse_function(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        function = _parse_function(d.pop("function", UNSET))

        node = cls(
            id=id,
            agent_id=agent_id,
            args=args,
            fleet_id=fleet_id,
            function=function,
        )

        return node
