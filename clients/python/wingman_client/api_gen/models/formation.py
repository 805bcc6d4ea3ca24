from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from dateutil.parser import isoparse

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.edge import Edge
    from ..models.node import Node


T = TypeVar("T", bound="Formation")


@_attrs_define
class Formation:
    """A formation as stored: its graph.

    Attributes:
        created_at (datetime.datetime):
        edges (list[Edge]): In the order given: a node with several inputs receives them in this order.
        id (str):
        name (str):
        nodes (list[Node]): In the order given.
        updated_at (datetime.datetime):
        owner (str | Unset): The owner whose key made it; set by the server, never by a client.
        shared (bool | Unset): Every owner may read and use it; only its owner or an admin may change it.
        version (int | Unset): 1 when made, one more with each change: what `If-Match` names to
            make a change only over the version read.
    """

    created_at: datetime.datetime
    edges: list[Edge]
    id: str
    name: str
    nodes: list[Node]
    updated_at: datetime.datetime
    owner: str | Unset = UNSET
    shared: bool | Unset = UNSET
    version: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        edges = []
        for edges_item_data in self.edges:
            edges_item = edges_item_data.to_dict()
            edges.append(edges_item)

        id = self.id

        name = self.name

        nodes = []
        for nodes_item_data in self.nodes:
            nodes_item = nodes_item_data.to_dict()
            nodes.append(nodes_item)

        updated_at = self.updated_at.isoformat()

        owner = self.owner

        shared = self.shared

        version = self.version

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "edges": edges,
                "id": id,
                "name": name,
                "nodes": nodes,
                "updated_at": updated_at,
            }
        )
        if owner is not UNSET:
            field_dict["owner"] = owner
        if shared is not UNSET:
            field_dict["shared"] = shared
        if version is not UNSET:
            field_dict["version"] = version

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.edge import Edge  # noqa: PLC0415
        from ..models.node import Node  # noqa: PLC0415

        d = dict(src_dict)
        created_at = isoparse(d.pop("created_at"))

        edges = []
        _edges = d.pop("edges")
        for edges_item_data in _edges:
            edges_item = Edge.from_dict(edges_item_data)

            edges.append(edges_item)

        id = d.pop("id")

        name = d.pop("name")

        nodes = []
        _nodes = d.pop("nodes")
        for nodes_item_data in _nodes:
            nodes_item = Node.from_dict(nodes_item_data)

            nodes.append(nodes_item)

        updated_at = isoparse(d.pop("updated_at"))

        owner = d.pop("owner", UNSET)

        shared = d.pop("shared", UNSET)

        version = d.pop("version", UNSET)

        formation = cls(
            created_at=created_at,
            edges=edges,
            id=id,
            name=name,
            nodes=nodes,
            updated_at=updated_at,
            owner=owner,
            shared=shared,
            version=version,
        )

        formation.additional_properties = d
        return formation

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
