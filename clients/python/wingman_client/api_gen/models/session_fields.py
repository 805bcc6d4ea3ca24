from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, Union, cast

from attrs import define as _attrs_define

from ..models.session_fields_tools_type_0_item import (
    SessionFieldsToolsType0Item,
    check_session_fields_tools_type_0_item,
)
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.client_tool import ClientTool
    from ..models.http_tool import HttpTool
    from ..models.json_object import JsonObject
    from ..models.mcp_server import McpServer


T = TypeVar("T", bound="SessionFields")


@_attrs_define
class SessionFields:
    """The fields a client may set on a session. On `PUT`, absent fields keep their value.

    Attributes:
        agent_id (None | str | Unset):
        client_tools (list[ClientTool] | None | Unset): Client tools this session's runs are offered besides the
            agent's.
        http_tools (list[HttpTool] | None | Unset): HTTP tools this session's runs are offered besides the agent's.
        mcp_servers (list[McpServer] | None | Unset): MCP servers this session's runs use besides the agent's.
        metadata (JsonObject | None | Unset):
        title (None | str | Unset):
        tools (list[SessionFieldsToolsType0Item] | None | Unset): Built-in tool names: the only tools its runs may use
        work_dir (None | str | Unset): An absolute path that does not contain the database; with --work-root, inside it
    """

    agent_id: None | str | Unset = UNSET
    client_tools: list[ClientTool] | None | Unset = UNSET
    http_tools: list[HttpTool] | None | Unset = UNSET
    mcp_servers: list[McpServer] | None | Unset = UNSET
    metadata: JsonObject | None | Unset = UNSET
    title: None | str | Unset = UNSET
    tools: list[SessionFieldsToolsType0Item] | None | Unset = UNSET
    work_dir: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.json_object import JsonObject  # noqa: PLC0415

        agent_id: None | str | Unset
        if isinstance(self.agent_id, Unset):
            agent_id = UNSET
        else:
            agent_id = self.agent_id

        client_tools: list[dict[str, Any]] | None | Unset
        if isinstance(self.client_tools, Unset):
            client_tools = UNSET
        elif isinstance(self.client_tools, list):
            client_tools = []
            for client_tools_type_0_item_data in self.client_tools:
                client_tools_type_0_item = client_tools_type_0_item_data.to_dict()
                client_tools.append(client_tools_type_0_item)

        else:
            client_tools = self.client_tools

        http_tools: list[dict[str, Any]] | None | Unset
        if isinstance(self.http_tools, Unset):
            http_tools = UNSET
        elif isinstance(self.http_tools, list):
            http_tools = []
            for http_tools_type_0_item_data in self.http_tools:
                http_tools_type_0_item = http_tools_type_0_item_data.to_dict()
                http_tools.append(http_tools_type_0_item)

        else:
            http_tools = self.http_tools

        mcp_servers: list[dict[str, Any]] | None | Unset
        if isinstance(self.mcp_servers, Unset):
            mcp_servers = UNSET
        elif isinstance(self.mcp_servers, list):
            mcp_servers = []
            for mcp_servers_type_0_item_data in self.mcp_servers:
                mcp_servers_type_0_item = mcp_servers_type_0_item_data.to_dict()
                mcp_servers.append(mcp_servers_type_0_item)

        else:
            mcp_servers = self.mcp_servers

        metadata: dict[str, Any] | None | Unset
        if isinstance(self.metadata, Unset):
            metadata = UNSET
        elif isinstance(self.metadata, JsonObject):
            metadata = self.metadata.to_dict()
        else:
            metadata = self.metadata

        title: None | str | Unset
        if isinstance(self.title, Unset):
            title = UNSET
        else:
            title = self.title

        tools: list[str] | None | Unset
        if isinstance(self.tools, Unset):
            tools = UNSET
        elif isinstance(self.tools, list):
            tools = []
            for tools_type_0_item_data in self.tools:
                tools_type_0_item: str = tools_type_0_item_data
                tools.append(tools_type_0_item)

        else:
            tools = self.tools

        work_dir: None | str | Unset
        if isinstance(self.work_dir, Unset):
            work_dir = UNSET
        else:
            work_dir = self.work_dir

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if agent_id is not UNSET:
            field_dict["agent_id"] = agent_id
        if client_tools is not UNSET:
            field_dict["client_tools"] = client_tools
        if http_tools is not UNSET:
            field_dict["http_tools"] = http_tools
        if mcp_servers is not UNSET:
            field_dict["mcp_servers"] = mcp_servers
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if title is not UNSET:
            field_dict["title"] = title
        if tools is not UNSET:
            field_dict["tools"] = tools
        if work_dir is not UNSET:
            field_dict["work_dir"] = work_dir

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.client_tool import ClientTool  # noqa: PLC0415
        from ..models.http_tool import HttpTool  # noqa: PLC0415
        from ..models.json_object import JsonObject  # noqa: PLC0415
        from ..models.mcp_server import McpServer  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_agent_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        agent_id = _parse_agent_id(d.pop("agent_id", UNSET))

        def _parse_client_tools(data: object) -> list[ClientTool] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                client_tools_type_0 = []
                _client_tools_type_0 = data
                for client_tools_type_0_item_data in _client_tools_type_0:
                    client_tools_type_0_item = ClientTool.from_dict(
                        client_tools_type_0_item_data
                    )

                    client_tools_type_0.append(client_tools_type_0_item)

                return client_tools_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[list[ClientTool], None, Unset], data)

        client_tools = _parse_client_tools(d.pop("client_tools", UNSET))

        def _parse_http_tools(data: object) -> list[HttpTool] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                http_tools_type_0 = []
                _http_tools_type_0 = data
                for http_tools_type_0_item_data in _http_tools_type_0:
                    http_tools_type_0_item = HttpTool.from_dict(
                        http_tools_type_0_item_data
                    )

                    http_tools_type_0.append(http_tools_type_0_item)

                return http_tools_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[list[HttpTool], None, Unset], data)

        http_tools = _parse_http_tools(d.pop("http_tools", UNSET))

        def _parse_mcp_servers(data: object) -> list[McpServer] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                mcp_servers_type_0 = []
                _mcp_servers_type_0 = data
                for mcp_servers_type_0_item_data in _mcp_servers_type_0:
                    mcp_servers_type_0_item = McpServer.from_dict(
                        mcp_servers_type_0_item_data
                    )

                    mcp_servers_type_0.append(mcp_servers_type_0_item)

                return mcp_servers_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[list[McpServer], None, Unset], data)

        mcp_servers = _parse_mcp_servers(d.pop("mcp_servers", UNSET))

        def _parse_metadata(data: object) -> JsonObject | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                metadata_type_0 = JsonObject.from_dict(data)

                return metadata_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[JsonObject, None, Unset], data)

        metadata = _parse_metadata(d.pop("metadata", UNSET))

        def _parse_title(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        title = _parse_title(d.pop("title", UNSET))

        def _parse_tools(
            data: object,
        ) -> list[SessionFieldsToolsType0Item] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                tools_type_0 = []
                _tools_type_0 = data
                for tools_type_0_item_data in _tools_type_0:
                    tools_type_0_item = check_session_fields_tools_type_0_item(
                        tools_type_0_item_data
                    )

                    tools_type_0.append(tools_type_0_item)

                return tools_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[list[SessionFieldsToolsType0Item], None, Unset], data)

        tools = _parse_tools(d.pop("tools", UNSET))

        def _parse_work_dir(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        work_dir = _parse_work_dir(d.pop("work_dir", UNSET))

        session_fields = cls(
            agent_id=agent_id,
            client_tools=client_tools,
            http_tools=http_tools,
            mcp_servers=mcp_servers,
            metadata=metadata,
            title=title,
            tools=tools,
            work_dir=work_dir,
        )

        return session_fields
