from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from dateutil.parser import isoparse

from ..models.fleet_run_status import FleetRunStatus, check_fleet_run_status
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.edge import Edge
    from ..models.node_row import NodeRow


T = TypeVar("T", bound="FormationRun")


@_attrs_define
class FormationRun:
    """A formation run as answers show it: its status, every node's state (a
    node that has not started is `pending`), the graph's edges, its outputs.

        Attributes:
            cancel_requested (bool): True once `POST /formation-runs/{id}/cancel` was accepted.
            created_at (datetime.datetime):
            edges (list[Edge]):
            formation_id (str):
            id (str):
            input_ (Any):
            name (str): The formation's name when the run was submitted.
            nodes (list[NodeRow]): Every node of the graph, in its order.
            owner (str): The owner whose key submitted it, and of its nodes' runs.
            status (FleetRunStatus): The life-cycle state of a fleet run.
            updated_at (datetime.datetime):
            error (None | str | Unset):
            finished_at (datetime.datetime | None | Unset):
            outputs (Any | Unset): The outputs of the exit nodes, by node, once the run has ended.
    """

    cancel_requested: bool
    created_at: datetime.datetime
    edges: list[Edge]
    formation_id: str
    id: str
    input_: Any
    name: str
    nodes: list[NodeRow]
    owner: str
    status: FleetRunStatus
    updated_at: datetime.datetime
    error: None | str | Unset = UNSET
    finished_at: datetime.datetime | None | Unset = UNSET
    outputs: Any | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cancel_requested = self.cancel_requested

        created_at = self.created_at.isoformat()

        edges = []
        for edges_item_data in self.edges:
            edges_item = edges_item_data.to_dict()
            edges.append(edges_item)

        formation_id = self.formation_id

        id = self.id

        input_ = self.input_

        name = self.name

        nodes = []
        for nodes_item_data in self.nodes:
            nodes_item = nodes_item_data.to_dict()
            nodes.append(nodes_item)

        owner = self.owner

        status: str = self.status

        updated_at = self.updated_at.isoformat()

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        finished_at: None | str | Unset
        if isinstance(self.finished_at, Unset):
            finished_at = UNSET
        elif isinstance(self.finished_at, datetime.datetime):
            finished_at = self.finished_at.isoformat()
        else:
            finished_at = self.finished_at

        outputs = self.outputs

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cancel_requested": cancel_requested,
                "created_at": created_at,
                "edges": edges,
                "formation_id": formation_id,
                "id": id,
                "input": input_,
                "name": name,
                "nodes": nodes,
                "owner": owner,
                "status": status,
                "updated_at": updated_at,
            }
        )
        if error is not UNSET:
            field_dict["error"] = error
        if finished_at is not UNSET:
            field_dict["finished_at"] = finished_at
        if outputs is not UNSET:
            field_dict["outputs"] = outputs

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.edge import Edge  # noqa: PLC0415
        from ..models.node_row import NodeRow  # noqa: PLC0415

        d = dict(src_dict)
        cancel_requested = d.pop("cancel_requested")

        created_at = isoparse(d.pop("created_at"))

        edges = []
        _edges = d.pop("edges")
        for edges_item_data in _edges:
            edges_item = Edge.from_dict(edges_item_data)

            edges.append(edges_item)

        formation_id = d.pop("formation_id")

        id = d.pop("id")

        input_ = d.pop("input")

        name = d.pop("name")

        nodes = []
        _nodes = d.pop("nodes")
        for nodes_item_data in _nodes:
            nodes_item = NodeRow.from_dict(nodes_item_data)

            nodes.append(nodes_item)

        owner = d.pop("owner")

        status = check_fleet_run_status(d.pop("status"))

        updated_at = isoparse(d.pop("updated_at"))

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_finished_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                finished_at_type_0 = isoparse(data)

                return finished_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[datetime.datetime, None, Unset], data)

        finished_at = _parse_finished_at(d.pop("finished_at", UNSET))

        outputs = d.pop("outputs", UNSET)

        formation_run = cls(
            cancel_requested=cancel_requested,
            created_at=created_at,
            edges=edges,
            formation_id=formation_id,
            id=id,
            input_=input_,
            name=name,
            nodes=nodes,
            owner=owner,
            status=status,
            updated_at=updated_at,
            error=error,
            finished_at=finished_at,
            outputs=outputs,
        )

        formation_run.additional_properties = d
        return formation_run

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
