from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..models.new_formation_nodes_item_type_2_function import (
    NewFormationNodesItemType2Function,
    check_new_formation_nodes_item_type_2_function,
)
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.new_formation_nodes_item_type_2_args import (
        NewFormationNodesItemType2Args,
    )


T = TypeVar("T", bound="NewFormationNodesItemType2")


@_attrs_define
class NewFormationNodesItemType2:
    """
    Attributes:
        function (NewFormationNodesItemType2Function):
        id (str):
        args (NewFormationNodesItemType2Args | Unset):
    """

    function: NewFormationNodesItemType2Function
    id: str
    args: NewFormationNodesItemType2Args | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        function: str = self.function

        id = self.id

        args: dict[str, Any] | Unset = UNSET
        if not isinstance(self.args, Unset):
            args = self.args.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "function": function,
                "id": id,
            }
        )
        if args is not UNSET:
            field_dict["args"] = args

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.new_formation_nodes_item_type_2_args import (
            NewFormationNodesItemType2Args,  # noqa: PLC0415
        )

        d = dict(src_dict)
        function = check_new_formation_nodes_item_type_2_function(d.pop("function"))

        id = d.pop("id")

        _args = d.pop("args", UNSET)
        args: NewFormationNodesItemType2Args | Unset
        if isinstance(_args, Unset):
            args = UNSET
        else:
            args = NewFormationNodesItemType2Args.from_dict(_args)

        new_formation_nodes_item_type_2 = cls(
            function=function,
            id=id,
            args=args,
        )

        return new_formation_nodes_item_type_2
