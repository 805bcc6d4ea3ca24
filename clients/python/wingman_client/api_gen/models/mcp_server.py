from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, Union, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.mcp_server_env import McpServerEnv
    from ..models.mcp_server_headers import McpServerHeaders


T = TypeVar("T", bound="McpServer")


@_attrs_define
class McpServer:
    """An MCP server an agent uses: started by the worker over stdio
    (`command`) or reached over Streamable HTTP (`url`). Its tools are
    offered as `<name>__<tool>`.

        Attributes:
            name (str): `[A-Za-z0-9-]`, at most 24 characters: the prefix of its tools' names.
            args (list[str] | Unset): For stdio: the program's arguments.
            command (None | str | Unset): For stdio: the program the worker starts (its child; it dies with it).
            env (McpServerEnv | Unset): For stdio: the program's environment, on top of a minimal one.
            headers (McpServerHeaders | Unset): For Streamable HTTP: headers sent with every request.
            timeout_ms (int | None | Unset): How long a call may go without an answer or a progress report
                (default 60,000; at most 3,600,000).
            tools (list[str] | None | Unset): Only these of its tools are offered (all when absent).
            url (None | str | Unset): For Streamable HTTP: the server's `http` or `https` URL.
    """

    name: str
    args: list[str] | Unset = UNSET
    command: None | str | Unset = UNSET
    env: McpServerEnv | Unset = UNSET
    headers: McpServerHeaders | Unset = UNSET
    timeout_ms: int | None | Unset = UNSET
    tools: list[str] | None | Unset = UNSET
    url: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        args: list[str] | Unset = UNSET
        if not isinstance(self.args, Unset):
            args = self.args

        command: None | str | Unset
        if isinstance(self.command, Unset):
            command = UNSET
        else:
            command = self.command

        env: dict[str, Any] | Unset = UNSET
        if not isinstance(self.env, Unset):
            env = self.env.to_dict()

        headers: dict[str, Any] | Unset = UNSET
        if not isinstance(self.headers, Unset):
            headers = self.headers.to_dict()

        timeout_ms: int | None | Unset
        if isinstance(self.timeout_ms, Unset):
            timeout_ms = UNSET
        else:
            timeout_ms = self.timeout_ms

        tools: list[str] | None | Unset
        if isinstance(self.tools, Unset):
            tools = UNSET
        elif isinstance(self.tools, list):
            tools = self.tools

        else:
            tools = self.tools

        url: None | str | Unset
        if isinstance(self.url, Unset):
            url = UNSET
        else:
            url = self.url

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
            }
        )
        if args is not UNSET:
            field_dict["args"] = args
        if command is not UNSET:
            field_dict["command"] = command
        if env is not UNSET:
            field_dict["env"] = env
        if headers is not UNSET:
            field_dict["headers"] = headers
        if timeout_ms is not UNSET:
            field_dict["timeout_ms"] = timeout_ms
        if tools is not UNSET:
            field_dict["tools"] = tools
        if url is not UNSET:
            field_dict["url"] = url

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.mcp_server_env import McpServerEnv  # noqa: PLC0415
        from ..models.mcp_server_headers import McpServerHeaders  # noqa: PLC0415

        d = dict(src_dict)
        name = d.pop("name")

        args = cast(list[str], d.pop("args", UNSET))

        def _parse_command(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        command = _parse_command(d.pop("command", UNSET))

        _env = d.pop("env", UNSET)
        env: McpServerEnv | Unset
        if isinstance(_env, Unset):
            env = UNSET
        else:
            env = McpServerEnv.from_dict(_env)

        _headers = d.pop("headers", UNSET)
        headers: McpServerHeaders | Unset
        if isinstance(_headers, Unset):
            headers = UNSET
        else:
            headers = McpServerHeaders.from_dict(_headers)

        def _parse_timeout_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[int, None, Unset], data)

        timeout_ms = _parse_timeout_ms(d.pop("timeout_ms", UNSET))

        def _parse_tools(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                tools_type_0 = cast(list[str], data)

                return tools_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[list[str], None, Unset], data)

        tools = _parse_tools(d.pop("tools", UNSET))

        def _parse_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        url = _parse_url(d.pop("url", UNSET))

        mcp_server = cls(
            name=name,
            args=args,
            command=command,
            env=env,
            headers=headers,
            timeout_ms=timeout_ms,
            tools=tools,
            url=url,
        )

        return mcp_server
