from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.client_tool import ClientTool
    from ..models.http_tool import HttpTool
    from ..models.mcp_server import McpServer


T = TypeVar("T", bound="ToolAdditions")


@_attrs_define
class ToolAdditions:
    """What a session adds to its agent's tools, for that session's runs only.

    Attributes:
        client_tools (list[ClientTool] | Unset):
        http_tools (list[HttpTool] | Unset):
        mcp_servers (list[McpServer] | Unset):
        tools (list[str] | Unset): Built-in tool names.
    """

    client_tools: list[ClientTool] | Unset = UNSET
    http_tools: list[HttpTool] | Unset = UNSET
    mcp_servers: list[McpServer] | Unset = UNSET
    tools: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        client_tools: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.client_tools, Unset):
            client_tools = []
            for client_tools_item_data in self.client_tools:
                client_tools_item = client_tools_item_data.to_dict()
                client_tools.append(client_tools_item)

        http_tools: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.http_tools, Unset):
            http_tools = []
            for http_tools_item_data in self.http_tools:
                http_tools_item = http_tools_item_data.to_dict()
                http_tools.append(http_tools_item)

        mcp_servers: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.mcp_servers, Unset):
            mcp_servers = []
            for mcp_servers_item_data in self.mcp_servers:
                mcp_servers_item = mcp_servers_item_data.to_dict()
                mcp_servers.append(mcp_servers_item)

        tools: list[str] | Unset = UNSET
        if not isinstance(self.tools, Unset):
            tools = self.tools

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if client_tools is not UNSET:
            field_dict["client_tools"] = client_tools
        if http_tools is not UNSET:
            field_dict["http_tools"] = http_tools
        if mcp_servers is not UNSET:
            field_dict["mcp_servers"] = mcp_servers
        if tools is not UNSET:
            field_dict["tools"] = tools

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.client_tool import ClientTool  # noqa: PLC0415
        from ..models.http_tool import HttpTool  # noqa: PLC0415
        from ..models.mcp_server import McpServer  # noqa: PLC0415

        d = dict(src_dict)
        _client_tools = d.pop("client_tools", UNSET)
        client_tools: list[ClientTool] | Unset = UNSET
        if _client_tools is not UNSET:
            client_tools = []
            for client_tools_item_data in _client_tools:
                client_tools_item = ClientTool.from_dict(client_tools_item_data)

                client_tools.append(client_tools_item)

        _http_tools = d.pop("http_tools", UNSET)
        http_tools: list[HttpTool] | Unset = UNSET
        if _http_tools is not UNSET:
            http_tools = []
            for http_tools_item_data in _http_tools:
                http_tools_item = HttpTool.from_dict(http_tools_item_data)

                http_tools.append(http_tools_item)

        _mcp_servers = d.pop("mcp_servers", UNSET)
        mcp_servers: list[McpServer] | Unset = UNSET
        if _mcp_servers is not UNSET:
            mcp_servers = []
            for mcp_servers_item_data in _mcp_servers:
                mcp_servers_item = McpServer.from_dict(mcp_servers_item_data)

                mcp_servers.append(mcp_servers_item)

        tools = cast(list[str], d.pop("tools", UNSET))

        tool_additions = cls(
            client_tools=client_tools,
            http_tools=http_tools,
            mcp_servers=mcp_servers,
            tools=tools,
        )

        tool_additions.additional_properties = d
        return tool_additions

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
