from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..models.new_formation_nodes_item_type_3_function import (
    NewFormationNodesItemType3Function,
    check_new_formation_nodes_item_type_3_function,
)

if TYPE_CHECKING:
    from ..models.new_formation_nodes_item_type_3_args import (
        NewFormationNodesItemType3Args,
    )


T = TypeVar("T", bound="NewFormationNodesItemType3")


@_attrs_define
class NewFormationNodesItemType3:
    """
    Attributes:
        args (NewFormationNodesItemType3Args):
        function (NewFormationNodesItemType3Function):
        id (str):
    """

    args: NewFormationNodesItemType3Args
    function: NewFormationNodesItemType3Function
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
        from ..models.new_formation_nodes_item_type_3_args import (
            NewFormationNodesItemType3Args,  # noqa: PLC0415
        )

        d = dict(src_dict)
        args = NewFormationNodesItemType3Args.from_dict(d.pop("args"))

        function = check_new_formation_nodes_item_type_3_function(d.pop("function"))

        id = d.pop("id")

        new_formation_nodes_item_type_3 = cls(
            args=args,
            function=function,
            id=id,
        )

        return new_formation_nodes_item_type_3
