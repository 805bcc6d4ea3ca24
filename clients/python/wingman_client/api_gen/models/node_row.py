from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.node_status import NodeStatus, check_node_status
from ..types import UNSET, Unset

T = TypeVar("T", bound="NodeRow")


@_attrs_define
class NodeRow:
    """A node of a run, as stored (a row per started node) and shown.

    Attributes:
        input_ (Any): What it was given.
        kind (str): `agent`, `fleet` or `function`.
        node (str):
        status (NodeStatus): A node's state in a run.
        error (None | str | Unset):
        fleet_run_id (None | str | Unset): A fleet node's fleet run.
        output (Any | Unset): What it gave, once it succeeded.
        run_id (None | str | Unset): An agent node's run.
    """

    input_: Any
    kind: str
    node: str
    status: NodeStatus
    error: None | str | Unset = UNSET
    fleet_run_id: None | str | Unset = UNSET
    output: Any | Unset = UNSET
    run_id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        input_ = self.input_

        kind = self.kind

        node = self.node

        status: str = self.status

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        fleet_run_id: None | str | Unset
        if isinstance(self.fleet_run_id, Unset):
            fleet_run_id = UNSET
        else:
            fleet_run_id = self.fleet_run_id

        output = self.output

        run_id: None | str | Unset
        if isinstance(self.run_id, Unset):
            run_id = UNSET
        else:
            run_id = self.run_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "input": input_,
                "kind": kind,
                "node": node,
                "status": status,
            }
        )
        if error is not UNSET:
            field_dict["error"] = error
        if fleet_run_id is not UNSET:
            field_dict["fleet_run_id"] = fleet_run_id
        if output is not UNSET:
            field_dict["output"] = output
        if run_id is not UNSET:
            field_dict["run_id"] = run_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        input_ = d.pop("input")

        kind = d.pop("kind")

        node = d.pop("node")

        status = check_node_status(d.pop("status"))

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_fleet_run_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        fleet_run_id = _parse_fleet_run_id(d.pop("fleet_run_id", UNSET))

        output = d.pop("output", UNSET)

        def _parse_run_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        run_id = _parse_run_id(d.pop("run_id", UNSET))

        node_row = cls(
            input_=input_,
            kind=kind,
            node=node,
            status=status,
            error=error,
            fleet_run_id=fleet_run_id,
            output=output,
            run_id=run_id,
        )

        node_row.additional_properties = d
        return node_row

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
