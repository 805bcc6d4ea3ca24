from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from dateutil.parser import isoparse

from ..models.reasoning import Reasoning, check_reasoning
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.agent_options import AgentOptions
    from ..models.client_tool import ClientTool
    from ..models.compaction_settings import CompactionSettings
    from ..models.concurrency import Concurrency
    from ..models.http_tool import HttpTool
    from ..models.mcp_server import McpServer
    from ..models.provider_limits import ProviderLimits
    from ..models.subagent import Subagent
    from ..models.webhook import Webhook


T = TypeVar("T", bound="Agent")


@_attrs_define
class Agent:
    """An agent: a provider, a model, instructions and tools.

    Attributes:
        created_at (datetime.datetime):
        id (str):
        max_steps (int):
        model (str):
        name (str):
        provider (str):
        updated_at (datetime.datetime):
        loop_guard (int | Unset): Identical tool calls (same tool, same input) in a row that are not
            run again (default 3; 0 turns the guard off).
        max_cost_usd (float | None | Unset): US dollars the run may spend (its steps' priced cost); the step that
            reaches it fails the run with `budget_exhausted`. No limit when null.
        max_step_output_bytes (int | Unset): Bytes of text, thinking and tool input one answer may stream before
            the run fails with `step_output_exceeded` (default 1048576).
        max_total_tokens (int | None | Unset): Tokens (input, output and cache) the run may use, whatever the
            model's price; the step that reaches it fails the run with
            `budget_exhausted`. No limit when null.
        step_timeout_secs (int | Unset): Seconds an inference step may take before it is abandoned as a
            transient provider failure, retried, then fatal (default 900).
        approve_tools (list[str] | Unset): Tools whose calls wait for a person's decision before they run
            (`["*"]` for every tool).
        client_tools (list[ClientTool] | Unset): Tools the client runs while the run waits (see
            [`crate::domain::toolset::ClientTool`]).
        compaction (CompactionSettings | Unset): The agent's `compaction` settings.
        concurrency (Concurrency | None | Unset):
        http_tools (list[HttpTool] | Unset): Tools the worker calls over HTTP (see
            [`crate::domain::toolset::HttpTool`]).
        instructions (None | str | Unset):
        limits (None | ProviderLimits | Unset):
        max_depth (int | Unset): How deep sub-agents may nest below a run of this agent (default 3):
            a call that would start a child deeper is refused.
        mcp_servers (list[McpServer] | Unset): MCP servers whose tools its runs are offered (see
            [`crate::domain::toolset::McpServer`]).
        options (AgentOptions | Unset): Forwarded to the provider (docs/providers.md lists each provider's keys).
        output_schema (Any | Unset):
        owner (str | Unset): The owner whose key made it; set by the server, never by a client.
        reasoning (Reasoning | Unset): How much the model reasons before it answers; docs/providers.md gives
            what each provider is sent for each level.
        reasoning_byte_limit (int | Unset): Bytes of thinking a step may stream before its first text or tool
            call; past them the step is cut as a transient failure.
        shared (bool | Unset): Every owner may read and use it; only its owner or an admin may change it.
        subagents (list[Subagent] | Unset): Agents its model may hand tasks to, as the tools `agent__<name>`
            (see [`crate::domain::subagent`]).
        tools (list[str] | Unset):
        version (int | Unset): 1 when made, one more with each change: what `If-Match` names to
            make a change only over the version read.
        webhook (None | Unset | Webhook):
    """

    created_at: datetime.datetime
    id: str
    max_steps: int
    model: str
    name: str
    provider: str
    updated_at: datetime.datetime
    loop_guard: int | Unset = UNSET
    max_cost_usd: float | None | Unset = UNSET
    max_step_output_bytes: int | Unset = UNSET
    max_total_tokens: int | None | Unset = UNSET
    step_timeout_secs: int | Unset = UNSET
    approve_tools: list[str] | Unset = UNSET
    client_tools: list[ClientTool] | Unset = UNSET
    compaction: CompactionSettings | Unset = UNSET
    concurrency: Concurrency | None | Unset = UNSET
    http_tools: list[HttpTool] | Unset = UNSET
    instructions: None | str | Unset = UNSET
    limits: None | ProviderLimits | Unset = UNSET
    max_depth: int | Unset = UNSET
    mcp_servers: list[McpServer] | Unset = UNSET
    options: AgentOptions | Unset = UNSET
    output_schema: Any | Unset = UNSET
    owner: str | Unset = UNSET
    reasoning: Reasoning | Unset = UNSET
    reasoning_byte_limit: int | Unset = UNSET
    shared: bool | Unset = UNSET
    subagents: list[Subagent] | Unset = UNSET
    tools: list[str] | Unset = UNSET
    version: int | Unset = UNSET
    webhook: None | Unset | Webhook = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.concurrency import Concurrency  # noqa: PLC0415
        from ..models.provider_limits import ProviderLimits  # noqa: PLC0415
        from ..models.webhook import Webhook  # noqa: PLC0415

        created_at = self.created_at.isoformat()

        id = self.id

        max_steps = self.max_steps

        model = self.model

        name = self.name

        provider = self.provider

        updated_at = self.updated_at.isoformat()

        loop_guard = self.loop_guard

        max_cost_usd: float | None | Unset
        if isinstance(self.max_cost_usd, Unset):
            max_cost_usd = UNSET
        else:
            max_cost_usd = self.max_cost_usd

        max_step_output_bytes = self.max_step_output_bytes

        max_total_tokens: int | None | Unset
        if isinstance(self.max_total_tokens, Unset):
            max_total_tokens = UNSET
        else:
            max_total_tokens = self.max_total_tokens

        step_timeout_secs = self.step_timeout_secs

        approve_tools: list[str] | Unset = UNSET
        if not isinstance(self.approve_tools, Unset):
            approve_tools = self.approve_tools

        client_tools: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.client_tools, Unset):
            client_tools = []
            for client_tools_item_data in self.client_tools:
                client_tools_item = client_tools_item_data.to_dict()
                client_tools.append(client_tools_item)

        compaction: dict[str, Any] | Unset = UNSET
        if not isinstance(self.compaction, Unset):
            compaction = self.compaction.to_dict()

        concurrency: dict[str, Any] | None | Unset
        if isinstance(self.concurrency, Unset):
            concurrency = UNSET
        elif isinstance(self.concurrency, Concurrency):
            concurrency = self.concurrency.to_dict()
        else:
            concurrency = self.concurrency

        http_tools: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.http_tools, Unset):
            http_tools = []
            for http_tools_item_data in self.http_tools:
                http_tools_item = http_tools_item_data.to_dict()
                http_tools.append(http_tools_item)

        instructions: None | str | Unset
        if isinstance(self.instructions, Unset):
            instructions = UNSET
        else:
            instructions = self.instructions

        limits: dict[str, Any] | None | Unset
        if isinstance(self.limits, Unset):
            limits = UNSET
        elif isinstance(self.limits, ProviderLimits):
            limits = self.limits.to_dict()
        else:
            limits = self.limits

        max_depth = self.max_depth

        mcp_servers: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.mcp_servers, Unset):
            mcp_servers = []
            for mcp_servers_item_data in self.mcp_servers:
                mcp_servers_item = mcp_servers_item_data.to_dict()
                mcp_servers.append(mcp_servers_item)

        options: dict[str, Any] | Unset = UNSET
        if not isinstance(self.options, Unset):
            options = self.options.to_dict()

        output_schema = self.output_schema

        owner = self.owner

        reasoning: str | Unset = UNSET
        if not isinstance(self.reasoning, Unset):
            reasoning = self.reasoning

        reasoning_byte_limit = self.reasoning_byte_limit

        shared = self.shared

        subagents: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.subagents, Unset):
            subagents = []
            for subagents_item_data in self.subagents:
                subagents_item = subagents_item_data.to_dict()
                subagents.append(subagents_item)

        tools: list[str] | Unset = UNSET
        if not isinstance(self.tools, Unset):
            tools = self.tools

        version = self.version

        webhook: dict[str, Any] | None | Unset
        if isinstance(self.webhook, Unset):
            webhook = UNSET
        elif isinstance(self.webhook, Webhook):
            webhook = self.webhook.to_dict()
        else:
            webhook = self.webhook

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "id": id,
                "max_steps": max_steps,
                "model": model,
                "name": name,
                "provider": provider,
                "updated_at": updated_at,
            }
        )
        if loop_guard is not UNSET:
            field_dict["loop_guard"] = loop_guard
        if max_cost_usd is not UNSET:
            field_dict["max_cost_usd"] = max_cost_usd
        if max_step_output_bytes is not UNSET:
            field_dict["max_step_output_bytes"] = max_step_output_bytes
        if max_total_tokens is not UNSET:
            field_dict["max_total_tokens"] = max_total_tokens
        if step_timeout_secs is not UNSET:
            field_dict["step_timeout_secs"] = step_timeout_secs
        if approve_tools is not UNSET:
            field_dict["approve_tools"] = approve_tools
        if client_tools is not UNSET:
            field_dict["client_tools"] = client_tools
        if compaction is not UNSET:
            field_dict["compaction"] = compaction
        if concurrency is not UNSET:
            field_dict["concurrency"] = concurrency
        if http_tools is not UNSET:
            field_dict["http_tools"] = http_tools
        if instructions is not UNSET:
            field_dict["instructions"] = instructions
        if limits is not UNSET:
            field_dict["limits"] = limits
        if max_depth is not UNSET:
            field_dict["max_depth"] = max_depth
        if mcp_servers is not UNSET:
            field_dict["mcp_servers"] = mcp_servers
        if options is not UNSET:
            field_dict["options"] = options
        if output_schema is not UNSET:
            field_dict["output_schema"] = output_schema
        if owner is not UNSET:
            field_dict["owner"] = owner
        if reasoning is not UNSET:
            field_dict["reasoning"] = reasoning
        if reasoning_byte_limit is not UNSET:
            field_dict["reasoning_byte_limit"] = reasoning_byte_limit
        if shared is not UNSET:
            field_dict["shared"] = shared
        if subagents is not UNSET:
            field_dict["subagents"] = subagents
        if tools is not UNSET:
            field_dict["tools"] = tools
        if version is not UNSET:
            field_dict["version"] = version
        if webhook is not UNSET:
            field_dict["webhook"] = webhook

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.agent_options import AgentOptions  # noqa: PLC0415
        from ..models.client_tool import ClientTool  # noqa: PLC0415
        from ..models.compaction_settings import CompactionSettings  # noqa: PLC0415
        from ..models.concurrency import Concurrency  # noqa: PLC0415
        from ..models.http_tool import HttpTool  # noqa: PLC0415
        from ..models.mcp_server import McpServer  # noqa: PLC0415
        from ..models.provider_limits import ProviderLimits  # noqa: PLC0415
        from ..models.subagent import Subagent  # noqa: PLC0415
        from ..models.webhook import Webhook  # noqa: PLC0415

        d = dict(src_dict)
        created_at = isoparse(d.pop("created_at"))

        id = d.pop("id")

        max_steps = d.pop("max_steps")

        model = d.pop("model")

        name = d.pop("name")

        provider = d.pop("provider")

        updated_at = isoparse(d.pop("updated_at"))

        loop_guard = d.pop("loop_guard", UNSET)

        def _parse_max_cost_usd(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[float, None, Unset], data)

        max_cost_usd = _parse_max_cost_usd(d.pop("max_cost_usd", UNSET))

        max_step_output_bytes = d.pop("max_step_output_bytes", UNSET)

        def _parse_max_total_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[int, None, Unset], data)

        max_total_tokens = _parse_max_total_tokens(d.pop("max_total_tokens", UNSET))

        step_timeout_secs = d.pop("step_timeout_secs", UNSET)

        approve_tools = cast(list[str], d.pop("approve_tools", UNSET))

        _client_tools = d.pop("client_tools", UNSET)
        client_tools: list[ClientTool] | Unset = UNSET
        if _client_tools is not UNSET:
            client_tools = []
            for client_tools_item_data in _client_tools:
                client_tools_item = ClientTool.from_dict(client_tools_item_data)

                client_tools.append(client_tools_item)

        _compaction = d.pop("compaction", UNSET)
        compaction: CompactionSettings | Unset
        if isinstance(_compaction, Unset):
            compaction = UNSET
        else:
            compaction = CompactionSettings.from_dict(_compaction)

        def _parse_concurrency(data: object) -> Concurrency | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                concurrency_type_0 = Concurrency.from_dict(data)

                return concurrency_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[Concurrency, None, Unset], data)

        concurrency = _parse_concurrency(d.pop("concurrency", UNSET))

        _http_tools = d.pop("http_tools", UNSET)
        http_tools: list[HttpTool] | Unset = UNSET
        if _http_tools is not UNSET:
            http_tools = []
            for http_tools_item_data in _http_tools:
                http_tools_item = HttpTool.from_dict(http_tools_item_data)

                http_tools.append(http_tools_item)

        def _parse_instructions(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        instructions = _parse_instructions(d.pop("instructions", UNSET))

        def _parse_limits(data: object) -> None | ProviderLimits | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                limits_type_0 = ProviderLimits.from_dict(data)

                return limits_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[None, ProviderLimits, Unset], data)

        limits = _parse_limits(d.pop("limits", UNSET))

        max_depth = d.pop("max_depth", UNSET)

        _mcp_servers = d.pop("mcp_servers", UNSET)
        mcp_servers: list[McpServer] | Unset = UNSET
        if _mcp_servers is not UNSET:
            mcp_servers = []
            for mcp_servers_item_data in _mcp_servers:
                mcp_servers_item = McpServer.from_dict(mcp_servers_item_data)

                mcp_servers.append(mcp_servers_item)

        _options = d.pop("options", UNSET)
        options: AgentOptions | Unset
        if isinstance(_options, Unset):
            options = UNSET
        else:
            options = AgentOptions.from_dict(_options)

        output_schema = d.pop("output_schema", UNSET)

        owner = d.pop("owner", UNSET)

        _reasoning = d.pop("reasoning", UNSET)
        reasoning: Reasoning | Unset
        if isinstance(_reasoning, Unset):
            reasoning = UNSET
        else:
            reasoning = check_reasoning(_reasoning)

        reasoning_byte_limit = d.pop("reasoning_byte_limit", UNSET)

        shared = d.pop("shared", UNSET)

        _subagents = d.pop("subagents", UNSET)
        subagents: list[Subagent] | Unset = UNSET
        if _subagents is not UNSET:
            subagents = []
            for subagents_item_data in _subagents:
                subagents_item = Subagent.from_dict(subagents_item_data)

                subagents.append(subagents_item)

        tools = cast(list[str], d.pop("tools", UNSET))

        version = d.pop("version", UNSET)

        def _parse_webhook(data: object) -> None | Unset | Webhook:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                webhook_type_0 = Webhook.from_dict(data)

                return webhook_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[None, Unset, Webhook], data)

        webhook = _parse_webhook(d.pop("webhook", UNSET))

        agent = cls(
            created_at=created_at,
            id=id,
            max_steps=max_steps,
            model=model,
            name=name,
            provider=provider,
            updated_at=updated_at,
            loop_guard=loop_guard,
            max_cost_usd=max_cost_usd,
            max_step_output_bytes=max_step_output_bytes,
            max_total_tokens=max_total_tokens,
            step_timeout_secs=step_timeout_secs,
            approve_tools=approve_tools,
            client_tools=client_tools,
            compaction=compaction,
            concurrency=concurrency,
            http_tools=http_tools,
            instructions=instructions,
            limits=limits,
            max_depth=max_depth,
            mcp_servers=mcp_servers,
            options=options,
            output_schema=output_schema,
            owner=owner,
            reasoning=reasoning,
            reasoning_byte_limit=reasoning_byte_limit,
            shared=shared,
            subagents=subagents,
            tools=tools,
            version=version,
            webhook=webhook,
        )

        agent.additional_properties = d
        return agent

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
