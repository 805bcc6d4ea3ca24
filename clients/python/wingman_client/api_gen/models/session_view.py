from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from dateutil.parser import isoparse

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.branch import Branch
    from ..models.client_tool import ClientTool
    from ..models.forked_from import ForkedFrom
    from ..models.history_message import HistoryMessage
    from ..models.http_tool import HttpTool
    from ..models.mcp_server import McpServer
    from ..models.session_metadata import SessionMetadata


T = TypeVar("T", bound="SessionView")


@_attrs_define
class SessionView:
    """A session as the original API showed it: its fields and its
    conversation; and the branches its rewinds set aside.

        Attributes:
            created_at (datetime.datetime):
            id (str):
            metadata (SessionMetadata):
            owner (str): The owner whose key made it (a fleet task's: its fleet run's); its runs are its owner's.
            updated_at (datetime.datetime):
            work_dir (str):
            branches (list[Branch]): The histories its rewinds set aside, oldest first: kept, never deleted.
            history (list[HistoryMessage]): The conversation, oldest first (with `?at` or `?branch`, as it was then).
            client_tools (list[ClientTool] | Unset):
            http_tools (list[HttpTool] | Unset):
            mcp_servers (list[McpServer] | Unset):
            tools (list[str] | Unset): Built-in tool names.
            agent_id (None | str | Unset):
            forked_from (ForkedFrom | None | Unset):
            title (None | str | Unset):
    """

    created_at: datetime.datetime
    id: str
    metadata: SessionMetadata
    owner: str
    updated_at: datetime.datetime
    work_dir: str
    branches: list[Branch]
    history: list[HistoryMessage]
    client_tools: list[ClientTool] | Unset = UNSET
    http_tools: list[HttpTool] | Unset = UNSET
    mcp_servers: list[McpServer] | Unset = UNSET
    tools: list[str] | Unset = UNSET
    agent_id: None | str | Unset = UNSET
    forked_from: ForkedFrom | None | Unset = UNSET
    title: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.forked_from import ForkedFrom  # noqa: PLC0415

        created_at = self.created_at.isoformat()

        id = self.id

        metadata = self.metadata.to_dict()

        owner = self.owner

        updated_at = self.updated_at.isoformat()

        work_dir = self.work_dir

        branches = []
        for branches_item_data in self.branches:
            branches_item = branches_item_data.to_dict()
            branches.append(branches_item)

        history = []
        for history_item_data in self.history:
            history_item = history_item_data.to_dict()
            history.append(history_item)

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

        agent_id: None | str | Unset
        if isinstance(self.agent_id, Unset):
            agent_id = UNSET
        else:
            agent_id = self.agent_id

        forked_from: dict[str, Any] | None | Unset
        if isinstance(self.forked_from, Unset):
            forked_from = UNSET
        elif isinstance(self.forked_from, ForkedFrom):
            forked_from = self.forked_from.to_dict()
        else:
            forked_from = self.forked_from

        title: None | str | Unset
        if isinstance(self.title, Unset):
            title = UNSET
        else:
            title = self.title

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "id": id,
                "metadata": metadata,
                "owner": owner,
                "updated_at": updated_at,
                "work_dir": work_dir,
                "branches": branches,
                "history": history,
            }
        )
        if client_tools is not UNSET:
            field_dict["client_tools"] = client_tools
        if http_tools is not UNSET:
            field_dict["http_tools"] = http_tools
        if mcp_servers is not UNSET:
            field_dict["mcp_servers"] = mcp_servers
        if tools is not UNSET:
            field_dict["tools"] = tools
        if agent_id is not UNSET:
            field_dict["agent_id"] = agent_id
        if forked_from is not UNSET:
            field_dict["forked_from"] = forked_from
        if title is not UNSET:
            field_dict["title"] = title

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.branch import Branch  # noqa: PLC0415
        from ..models.client_tool import ClientTool  # noqa: PLC0415
        from ..models.forked_from import ForkedFrom  # noqa: PLC0415
        from ..models.history_message import HistoryMessage  # noqa: PLC0415
        from ..models.http_tool import HttpTool  # noqa: PLC0415
        from ..models.mcp_server import McpServer  # noqa: PLC0415
        from ..models.session_metadata import SessionMetadata  # noqa: PLC0415

        d = dict(src_dict)
        created_at = isoparse(d.pop("created_at"))

        id = d.pop("id")

        metadata = SessionMetadata.from_dict(d.pop("metadata"))

        owner = d.pop("owner")

        updated_at = isoparse(d.pop("updated_at"))

        work_dir = d.pop("work_dir")

        branches = []
        _branches = d.pop("branches")
        for branches_item_data in _branches:
            branches_item = Branch.from_dict(branches_item_data)

            branches.append(branches_item)

        history = []
        _history = d.pop("history")
        for history_item_data in _history:
            history_item = HistoryMessage.from_dict(history_item_data)

            history.append(history_item)

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

        def _parse_agent_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        agent_id = _parse_agent_id(d.pop("agent_id", UNSET))

        def _parse_forked_from(data: object) -> ForkedFrom | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                forked_from_type_0 = ForkedFrom.from_dict(data)

                return forked_from_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[ForkedFrom, None, Unset], data)

        forked_from = _parse_forked_from(d.pop("forked_from", UNSET))

        def _parse_title(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        title = _parse_title(d.pop("title", UNSET))

        session_view = cls(
            created_at=created_at,
            id=id,
            metadata=metadata,
            owner=owner,
            updated_at=updated_at,
            work_dir=work_dir,
            branches=branches,
            history=history,
            client_tools=client_tools,
            http_tools=http_tools,
            mcp_servers=mcp_servers,
            tools=tools,
            agent_id=agent_id,
            forked_from=forked_from,
            title=title,
        )

        session_view.additional_properties = d
        return session_view

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
