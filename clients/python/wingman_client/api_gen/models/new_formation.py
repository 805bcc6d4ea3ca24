from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.edge import Edge
    from ..models.new_formation_nodes_item_type_0 import NewFormationNodesItemType0
    from ..models.new_formation_nodes_item_type_1 import NewFormationNodesItemType1
    from ..models.new_formation_nodes_item_type_2 import NewFormationNodesItemType2
    from ..models.new_formation_nodes_item_type_3 import NewFormationNodesItemType3
    from ..models.new_formation_nodes_item_type_4 import NewFormationNodesItemType4
    from ..models.new_formation_nodes_item_type_5 import NewFormationNodesItemType5


T = TypeVar("T", bound="NewFormation")


@_attrs_define
class NewFormation:
    """The body of `POST /formations`.

    Attributes:
        name (str): Not blank
        nodes (list[NewFormationNodesItemType0 | NewFormationNodesItemType1 | NewFormationNodesItemType2 |
            NewFormationNodesItemType3 | NewFormationNodesItemType4 | NewFormationNodesItemType5]): Nodes: `{"id",
            "agent_id"}`, `{"id", "fleet_id"}` or `{"id", "function", "args"?}`
        edges (list[Edge] | Unset): `{"from", "to"}`: `from`'s output is an input of `to` (several inputs
            arrive as a list, in the order of these edges).
        shared (bool | Unset): Every owner may read it and run it; only its owner or an admin may
            delete it. False by default.
    """

    name: str
    nodes: list[
        NewFormationNodesItemType0
        | NewFormationNodesItemType1
        | NewFormationNodesItemType2
        | NewFormationNodesItemType3
        | NewFormationNodesItemType4
        | NewFormationNodesItemType5
    ]
    edges: list[Edge] | Unset = UNSET
    shared: bool | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.new_formation_nodes_item_type_0 import NewFormationNodesItemType0  # noqa: PLC0415
        from ..models.new_formation_nodes_item_type_1 import NewFormationNodesItemType1  # noqa: PLC0415
        from ..models.new_formation_nodes_item_type_2 import NewFormationNodesItemType2  # noqa: PLC0415
        from ..models.new_formation_nodes_item_type_3 import NewFormationNodesItemType3  # noqa: PLC0415
        from ..models.new_formation_nodes_item_type_4 import NewFormationNodesItemType4  # noqa: PLC0415

        name = self.name

        nodes = []
        for nodes_item_data in self.nodes:
            nodes_item: dict[str, Any]
            if isinstance(nodes_item_data, NewFormationNodesItemType0):
                nodes_item = nodes_item_data.to_dict()
            elif isinstance(nodes_item_data, NewFormationNodesItemType1):
                nodes_item = nodes_item_data.to_dict()
            elif isinstance(nodes_item_data, NewFormationNodesItemType2):
                nodes_item = nodes_item_data.to_dict()
            elif isinstance(nodes_item_data, NewFormationNodesItemType3):
                nodes_item = nodes_item_data.to_dict()
            elif isinstance(nodes_item_data, NewFormationNodesItemType4):
                nodes_item = nodes_item_data.to_dict()
            else:
                nodes_item = nodes_item_data.to_dict()

            nodes.append(nodes_item)

        edges: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.edges, Unset):
            edges = []
            for edges_item_data in self.edges:
                edges_item = edges_item_data.to_dict()
                edges.append(edges_item)

        shared = self.shared

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
                "nodes": nodes,
            }
        )
        if edges is not UNSET:
            field_dict["edges"] = edges
        if shared is not UNSET:
            field_dict["shared"] = shared

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.edge import Edge  # noqa: PLC0415
        from ..models.new_formation_nodes_item_type_0 import NewFormationNodesItemType0  # noqa: PLC0415
        from ..models.new_formation_nodes_item_type_1 import NewFormationNodesItemType1  # noqa: PLC0415
        from ..models.new_formation_nodes_item_type_2 import NewFormationNodesItemType2  # noqa: PLC0415
        from ..models.new_formation_nodes_item_type_3 import NewFormationNodesItemType3  # noqa: PLC0415
        from ..models.new_formation_nodes_item_type_4 import NewFormationNodesItemType4  # noqa: PLC0415
        from ..models.new_formation_nodes_item_type_5 import NewFormationNodesItemType5  # noqa: PLC0415

        d = dict(src_dict)
        name = d.pop("name")

        nodes = []
        _nodes = d.pop("nodes")
        for nodes_item_data in _nodes:

            def _parse_nodes_item(
                data: object,
            ) -> (
                NewFormationNodesItemType0
                | NewFormationNodesItemType1
                | NewFormationNodesItemType2
                | NewFormationNodesItemType3
                | NewFormationNodesItemType4
                | NewFormationNodesItemType5
            ):
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    nodes_item_type_0 = NewFormationNodesItemType0.from_dict(data)

                    return nodes_item_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    nodes_item_type_1 = NewFormationNodesItemType1.from_dict(data)

                    return nodes_item_type_1
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    nodes_item_type_2 = NewFormationNodesItemType2.from_dict(data)

                    return nodes_item_type_2
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    nodes_item_type_3 = NewFormationNodesItemType3.from_dict(data)

                    return nodes_item_type_3
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    nodes_item_type_4 = NewFormationNodesItemType4.from_dict(data)

                    return nodes_item_type_4
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                if not isinstance(data, dict):
                    raise TypeError()
                nodes_item_type_5 = NewFormationNodesItemType5.from_dict(data)

                return nodes_item_type_5

            nodes_item = _parse_nodes_item(nodes_item_data)

            nodes.append(nodes_item)

        _edges = d.pop("edges", UNSET)
        edges: list[Edge] | Unset = UNSET
        if _edges is not UNSET:
            edges = []
            for edges_item_data in _edges:
                edges_item = Edge.from_dict(edges_item_data)

                edges.append(edges_item)

        shared = d.pop("shared", UNSET)

        new_formation = cls(
            name=name,
            nodes=nodes,
            edges=edges,
            shared=shared,
        )

        return new_formation
