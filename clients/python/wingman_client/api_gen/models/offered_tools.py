from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.offered_tool import OfferedTool
    from ..models.server_listing import ServerListing
    from ..models.unavailable_server import UnavailableServer


T = TypeVar("T", bound="OfferedTools")


@_attrs_define
class OfferedTools:
    """What an agent's runs are offered now.

    Attributes:
        listings (list[ServerListing]): When a worker last listed each MCP server's tools (what the answer
            shows of them), by server.
        tools (list[OfferedTool]): Every tool, in the order the model sees them.
        unavailable (list[UnavailableServer]): MCP servers that could not be reached or could not list their tools
            now: a run's step would go without their tools.
    """

    listings: list[ServerListing]
    tools: list[OfferedTool]
    unavailable: list[UnavailableServer]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        listings = []
        for listings_item_data in self.listings:
            listings_item = listings_item_data.to_dict()
            listings.append(listings_item)

        tools = []
        for tools_item_data in self.tools:
            tools_item = tools_item_data.to_dict()
            tools.append(tools_item)

        unavailable = []
        for unavailable_item_data in self.unavailable:
            unavailable_item = unavailable_item_data.to_dict()
            unavailable.append(unavailable_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "listings": listings,
                "tools": tools,
                "unavailable": unavailable,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.offered_tool import OfferedTool  # noqa: PLC0415
        from ..models.server_listing import ServerListing  # noqa: PLC0415
        from ..models.unavailable_server import UnavailableServer  # noqa: PLC0415

        d = dict(src_dict)
        listings = []
        _listings = d.pop("listings")
        for listings_item_data in _listings:
            listings_item = ServerListing.from_dict(listings_item_data)

            listings.append(listings_item)

        tools = []
        _tools = d.pop("tools")
        for tools_item_data in _tools:
            tools_item = OfferedTool.from_dict(tools_item_data)

            tools.append(tools_item)

        unavailable = []
        _unavailable = d.pop("unavailable")
        for unavailable_item_data in _unavailable:
            unavailable_item = UnavailableServer.from_dict(unavailable_item_data)

            unavailable.append(unavailable_item)

        offered_tools = cls(
            listings=listings,
            tools=tools,
            unavailable=unavailable,
        )

        offered_tools.additional_properties = d
        return offered_tools

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
