from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..models.new_formation_nodes_item_type_5_function import (
    NewFormationNodesItemType5Function,
    check_new_formation_nodes_item_type_5_function,
)

if TYPE_CHECKING:
    from ..models.new_formation_nodes_item_type_5_args import (
        NewFormationNodesItemType5Args,
    )


T = TypeVar("T", bound="NewFormationNodesItemType5")


@_attrs_define
class NewFormationNodesItemType5:
    """
    Attributes:
        args (NewFormationNodesItemType5Args):
        function (NewFormationNodesItemType5Function):
        id (str):
    """

    args: NewFormationNodesItemType5Args
    function: NewFormationNodesItemType5Function
    id: str

    def to_dict(self) -> dict[str, Any]:
        args = self.args.to_dict()

        function: str = self.function

        id = self.id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "args": args,
                "function": function,
                "id": id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.new_formation_nodes_item_type_5_args import (
            NewFormationNodesItemType5Args,  # noqa: PLC0415
        )

        d = dict(src_dict)
        args = NewFormationNodesItemType5Args.from_dict(d.pop("args"))

        function = check_new_formation_nodes_item_type_5_function(d.pop("function"))

        id = d.pop("id")

        new_formation_nodes_item_type_5 = cls(
            args=args,
            function=function,
            id=id,
        )

        return new_formation_nodes_item_type_5
