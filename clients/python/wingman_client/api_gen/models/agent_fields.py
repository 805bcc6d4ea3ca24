from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, Union, cast

from attrs import define as _attrs_define

from ..models.agent_fields_provider_type_1 import (
    AgentFieldsProviderType1,
    check_agent_fields_provider_type_1,
)
from ..models.agent_fields_provider_type_2_type_1 import (
    AgentFieldsProviderType2Type1,
    check_agent_fields_provider_type_2_type_1,
)
from ..models.agent_fields_provider_type_3_type_1 import (
    AgentFieldsProviderType3Type1,
    check_agent_fields_provider_type_3_type_1,
)
from ..models.agent_fields_reasoning_type_1 import (
    AgentFieldsReasoningType1,
    check_agent_fields_reasoning_type_1,
)
from ..models.agent_fields_reasoning_type_2_type_1 import (
    AgentFieldsReasoningType2Type1,
    check_agent_fields_reasoning_type_2_type_1,
)
from ..models.agent_fields_reasoning_type_3_type_1 import (
    AgentFieldsReasoningType3Type1,
    check_agent_fields_reasoning_type_3_type_1,
)
from ..models.agent_fields_tools_type_0_item import (
    AgentFieldsToolsType0Item,
    check_agent_fields_tools_type_0_item,
)
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.client_tool import ClientTool
    from ..models.compaction_settings import CompactionSettings
    from ..models.concurrency import Concurrency
    from ..models.http_tool import HttpTool
    from ..models.json_object import JsonObject
    from ..models.mcp_server import McpServer
    from ..models.provider_limits import ProviderLimits
    from ..models.subagent import Subagent
    from ..models.webhook import Webhook


T = TypeVar("T", bound="AgentFields")


@_attrs_define
class AgentFields:
    """The fields a client may set on an agent. On `PUT`, absent fields keep their value.

    Attributes:
        approve_tools (list[str] | None | Unset): Tools whose calls wait for a person's decision (`["*"]` for all)
        client_tools (list[ClientTool] | None | Unset): Tools the client runs: a run that calls one waits for the
            results.
        compaction (CompactionSettings | None | Unset):
        concurrency (Concurrency | None | Unset):
        http_tools (list[HttpTool] | None | Unset): Tools the worker calls over HTTP, signed and retried.
        instructions (None | str | Unset):
        limits (None | ProviderLimits | Unset):
        loop_guard (int | None | Unset): Identical tool calls in a row that are not run again (default 3; 0 for off)
        max_cost_usd (float | None | Unset): US dollars a run may spend; `null` for no limit
        max_depth (int | None | Unset): How deep sub-agents may nest below a run of this agent (default 3).
        max_step_output_bytes (int | None | Unset): Bytes of text, thinking and tool input one answer may stream
            (default 1048576).
        max_steps (int | None | Unset): Inference steps before a run fails (default 50).
        max_total_tokens (int | None | Unset): Tokens a run may use, whatever its model's price; `null` for no limit
        mcp_servers (list[McpServer] | None | Unset): MCP servers whose tools its runs are offered as
            `<server>__<tool>`.
        model (None | str | Unset):
        name (None | str | Unset): Not blank
        options (JsonObject | None | Unset):
        output_schema (JsonObject | None | Unset):
        provider (AgentFieldsProviderType1 | AgentFieldsProviderType2Type1 | AgentFieldsProviderType3Type1 | None |
            Unset): The provider (`scripted` by default)
        reasoning (AgentFieldsReasoningType1 | AgentFieldsReasoningType2Type1 | AgentFieldsReasoningType3Type1 | None |
            Unset): How much the model reasons before it answers: `off` (the default), `low`, `medium`, `high`, `max`
        reasoning_byte_limit (int | None | Unset): Bytes of thinking a step may stream before any text or tool call
            (default 262144); past them the step is retried as a reasoning stall.
        shared (bool | None | Unset): Every owner may read it and use it (in sessions, fleets, formations
            and as a sub-agent); only its owner or an admin may change it. False
            by default.
        step_timeout_secs (int | None | Unset): Seconds an inference step may take before it is retried (default 900).
        subagents (list[Subagent] | None | Unset): Agents its model may hand tasks to, each offered as the tool
            `agent__<name>` (`name` defaults to the agent's own name).
        tools (list[AgentFieldsToolsType0Item] | None | Unset): Built-in tool names: the only tools its runs may use
        version (int | None | Unset): On `PUT` only: the version the change is made over, as `If-Match`
            names it (a `409` if the agent is at another).
        webhook (None | Unset | Webhook):
    """

    approve_tools: list[str] | None | Unset = UNSET
    client_tools: list[ClientTool] | None | Unset = UNSET
    compaction: CompactionSettings | None | Unset = UNSET
    concurrency: Concurrency | None | Unset = UNSET
    http_tools: list[HttpTool] | None | Unset = UNSET
    instructions: None | str | Unset = UNSET
    limits: None | ProviderLimits | Unset = UNSET
    loop_guard: int | None | Unset = UNSET
    max_cost_usd: float | None | Unset = UNSET
    max_depth: int | None | Unset = UNSET
    max_step_output_bytes: int | None | Unset = UNSET
    max_steps: int | None | Unset = UNSET
    max_total_tokens: int | None | Unset = UNSET
    mcp_servers: list[McpServer] | None | Unset = UNSET
    model: None | str | Unset = UNSET
    name: None | str | Unset = UNSET
    options: JsonObject | None | Unset = UNSET
    output_schema: JsonObject | None | Unset = UNSET
    provider: (
        AgentFieldsProviderType1
        | AgentFieldsProviderType2Type1
        | AgentFieldsProviderType3Type1
        | None
        | Unset
    ) = UNSET
    reasoning: (
        AgentFieldsReasoningType1
        | AgentFieldsReasoningType2Type1
        | AgentFieldsReasoningType3Type1
        | None
        | Unset
    ) = UNSET
    reasoning_byte_limit: int | None | Unset = UNSET
    shared: bool | None | Unset = UNSET
    step_timeout_secs: int | None | Unset = UNSET
    subagents: list[Subagent] | None | Unset = UNSET
    tools: list[AgentFieldsToolsType0Item] | None | Unset = UNSET
    version: int | None | Unset = UNSET
    webhook: None | Unset | Webhook = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.compaction_settings import CompactionSettings  # noqa: PLC0415
        from ..models.concurrency import Concurrency  # noqa: PLC0415
        from ..models.json_object import JsonObject  # noqa: PLC0415
        from ..models.provider_limits import ProviderLimits  # noqa: PLC0415
        from ..models.webhook import Webhook  # noqa: PLC0415

        approve_tools: list[str] | None | Unset
        if isinstance(self.approve_tools, Unset):
            approve_tools = UNSET
        elif isinstance(self.approve_tools, list):
            approve_tools = self.approve_tools

        else:
            approve_tools = self.approve_tools

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

        compaction: dict[str, Any] | None | Unset
        if isinstance(self.compaction, Unset):
            compaction = UNSET
        elif isinstance(self.compaction, CompactionSettings):
            compaction = self.compaction.to_dict()
        else:
            compaction = self.compaction

        concurrency: dict[str, Any] | None | Unset
        if isinstance(self.concurrency, Unset):
            concurrency = UNSET
        elif isinstance(self.concurrency, Concurrency):
            concurrency = self.concurrency.to_dict()
        else:
            concurrency = self.concurrency

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

        loop_guard: int | None | Unset
        if isinstance(self.loop_guard, Unset):
            loop_guard = UNSET
        else:
            loop_guard = self.loop_guard

        max_cost_usd: float | None | Unset
        if isinstance(self.max_cost_usd, Unset):
            max_cost_usd = UNSET
        else:
            max_cost_usd = self.max_cost_usd

        max_depth: int | None | Unset
        if isinstance(self.max_depth, Unset):
            max_depth = UNSET
        else:
            max_depth = self.max_depth

        max_step_output_bytes: int | None | Unset
        if isinstance(self.max_step_output_bytes, Unset):
            max_step_output_bytes = UNSET
        else:
            max_step_output_bytes = self.max_step_output_bytes

        max_steps: int | None | Unset
        if isinstance(self.max_steps, Unset):
            max_steps = UNSET
        else:
            max_steps = self.max_steps

        max_total_tokens: int | None | Unset
        if isinstance(self.max_total_tokens, Unset):
            max_total_tokens = UNSET
        else:
            max_total_tokens = self.max_total_tokens

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

        model: None | str | Unset
        if isinstance(self.model, Unset):
            model = UNSET
        else:
            model = self.model

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        options: dict[str, Any] | None | Unset
        if isinstance(self.options, Unset):
            options = UNSET
        elif isinstance(self.options, JsonObject):
            options = self.options.to_dict()
        else:
            options = self.options

        output_schema: dict[str, Any] | None | Unset
        if isinstance(self.output_schema, Unset):
            output_schema = UNSET
        elif isinstance(self.output_schema, JsonObject):
            output_schema = self.output_schema.to_dict()
        else:
            output_schema = self.output_schema

        provider: None | str | Unset
        if isinstance(self.provider, Unset):
            provider = UNSET
        elif isinstance(self.provider, str):
            provider = self.provider
        elif isinstance(self.provider, str):
            provider = self.provider
        elif isinstance(self.provider, str):
            provider = self.provider
        else:
            provider = self.provider

        reasoning: None | str | Unset
        if isinstance(self.reasoning, Unset):
            reasoning = UNSET
        elif isinstance(self.reasoning, str):
            reasoning = self.reasoning
        elif isinstance(self.reasoning, str):
            reasoning = self.reasoning
        elif isinstance(self.reasoning, str):
            reasoning = self.reasoning
        else:
            reasoning = self.reasoning

        reasoning_byte_limit: int | None | Unset
        if isinstance(self.reasoning_byte_limit, Unset):
            reasoning_byte_limit = UNSET
        else:
            reasoning_byte_limit = self.reasoning_byte_limit

        shared: bool | None | Unset
        if isinstance(self.shared, Unset):
            shared = UNSET
        else:
            shared = self.shared

        step_timeout_secs: int | None | Unset
        if isinstance(self.step_timeout_secs, Unset):
            step_timeout_secs = UNSET
        else:
            step_timeout_secs = self.step_timeout_secs

        subagents: list[dict[str, Any]] | None | Unset
        if isinstance(self.subagents, Unset):
            subagents = UNSET
        elif isinstance(self.subagents, list):
            subagents = []
            for subagents_type_0_item_data in self.subagents:
                subagents_type_0_item = subagents_type_0_item_data.to_dict()
                subagents.append(subagents_type_0_item)

        else:
            subagents = self.subagents

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

        version: int | None | Unset
        if isinstance(self.version, Unset):
            version = UNSET
        else:
            version = self.version

        webhook: dict[str, Any] | None | Unset
        if isinstance(self.webhook, Unset):
            webhook = UNSET
        elif isinstance(self.webhook, Webhook):
            webhook = self.webhook.to_dict()
        else:
            webhook = self.webhook

        field_dict: dict[str, Any] = {}

        field_dict.update({})
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
        if loop_guard is not UNSET:
            field_dict["loop_guard"] = loop_guard
        if max_cost_usd is not UNSET:
            field_dict["max_cost_usd"] = max_cost_usd
        if max_depth is not UNSET:
            field_dict["max_depth"] = max_depth
        if max_step_output_bytes is not UNSET:
            field_dict["max_step_output_bytes"] = max_step_output_bytes
        if max_steps is not UNSET:
            field_dict["max_steps"] = max_steps
        if max_total_tokens is not UNSET:
            field_dict["max_total_tokens"] = max_total_tokens
        if mcp_servers is not UNSET:
            field_dict["mcp_servers"] = mcp_servers
        if model is not UNSET:
            field_dict["model"] = model
        if name is not UNSET:
            field_dict["name"] = name
        if options is not UNSET:
            field_dict["options"] = options
        if output_schema is not UNSET:
            field_dict["output_schema"] = output_schema
        if provider is not UNSET:
            field_dict["provider"] = provider
        if reasoning is not UNSET:
            field_dict["reasoning"] = reasoning
        if reasoning_byte_limit is not UNSET:
            field_dict["reasoning_byte_limit"] = reasoning_byte_limit
        if shared is not UNSET:
            field_dict["shared"] = shared
        if step_timeout_secs is not UNSET:
            field_dict["step_timeout_secs"] = step_timeout_secs
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
        from ..models.client_tool import ClientTool  # noqa: PLC0415
        from ..models.compaction_settings import CompactionSettings  # noqa: PLC0415
        from ..models.concurrency import Concurrency  # noqa: PLC0415
        from ..models.http_tool import HttpTool  # noqa: PLC0415
        from ..models.json_object import JsonObject  # noqa: PLC0415
        from ..models.mcp_server import McpServer  # noqa: PLC0415
        from ..models.provider_limits import ProviderLimits  # noqa: PLC0415
        from ..models.subagent import Subagent  # noqa: PLC0415
        from ..models.webhook import Webhook  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_approve_tools(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                approve_tools_type_0 = cast(list[str], data)

                return approve_tools_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[list[str], None, Unset], data)

        approve_tools = _parse_approve_tools(d.pop("approve_tools", UNSET))

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

        def _parse_compaction(data: object) -> CompactionSettings | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                compaction_type_0 = CompactionSettings.from_dict(data)

                return compaction_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[CompactionSettings, None, Unset], data)

        compaction = _parse_compaction(d.pop("compaction", UNSET))

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

        def _parse_loop_guard(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[int, None, Unset], data)

        loop_guard = _parse_loop_guard(d.pop("loop_guard", UNSET))

        def _parse_max_cost_usd(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[float, None, Unset], data)

        max_cost_usd = _parse_max_cost_usd(d.pop("max_cost_usd", UNSET))

        def _parse_max_depth(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[int, None, Unset], data)

        max_depth = _parse_max_depth(d.pop("max_depth", UNSET))

        def _parse_max_step_output_bytes(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[int, None, Unset], data)

        max_step_output_bytes = _parse_max_step_output_bytes(
            d.pop("max_step_output_bytes", UNSET)
        )

        def _parse_max_steps(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[int, None, Unset], data)

        max_steps = _parse_max_steps(d.pop("max_steps", UNSET))

        def _parse_max_total_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[int, None, Unset], data)

        max_total_tokens = _parse_max_total_tokens(d.pop("max_total_tokens", UNSET))

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

        def _parse_model(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        model = _parse_model(d.pop("model", UNSET))

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        name = _parse_name(d.pop("name", UNSET))

        def _parse_options(data: object) -> JsonObject | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                options_type_0 = JsonObject.from_dict(data)

                return options_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[JsonObject, None, Unset], data)

        options = _parse_options(d.pop("options", UNSET))

        def _parse_output_schema(data: object) -> JsonObject | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                output_schema_type_0 = JsonObject.from_dict(data)

                return output_schema_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[JsonObject, None, Unset], data)

        output_schema = _parse_output_schema(d.pop("output_schema", UNSET))

        def _parse_provider(
            data: object,
        ) -> (
            AgentFieldsProviderType1
            | AgentFieldsProviderType2Type1
            | AgentFieldsProviderType3Type1
            | None
            | Unset
        ):
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                provider_type_1 = check_agent_fields_provider_type_1(data)

                return provider_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                provider_type_2_type_1 = check_agent_fields_provider_type_2_type_1(data)

                return provider_type_2_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                provider_type_3_type_1 = check_agent_fields_provider_type_3_type_1(data)

                return provider_type_3_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                Union[
                    AgentFieldsProviderType1,
                    AgentFieldsProviderType2Type1,
                    AgentFieldsProviderType3Type1,
                    None,
                    Unset,
                ],
                data,
            )

        provider = _parse_provider(d.pop("provider", UNSET))

        def _parse_reasoning(
            data: object,
        ) -> (
            AgentFieldsReasoningType1
            | AgentFieldsReasoningType2Type1
            | AgentFieldsReasoningType3Type1
            | None
            | Unset
        ):
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reasoning_type_1 = check_agent_fields_reasoning_type_1(data)

                return reasoning_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reasoning_type_2_type_1 = check_agent_fields_reasoning_type_2_type_1(
                    data
                )

                return reasoning_type_2_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reasoning_type_3_type_1 = check_agent_fields_reasoning_type_3_type_1(
                    data
                )

                return reasoning_type_3_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                Union[
                    AgentFieldsReasoningType1,
                    AgentFieldsReasoningType2Type1,
                    AgentFieldsReasoningType3Type1,
                    None,
                    Unset,
                ],
                data,
            )

        reasoning = _parse_reasoning(d.pop("reasoning", UNSET))

        def _parse_reasoning_byte_limit(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[int, None, Unset], data)

        reasoning_byte_limit = _parse_reasoning_byte_limit(
            d.pop("reasoning_byte_limit", UNSET)
        )

        def _parse_shared(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[bool, None, Unset], data)

        shared = _parse_shared(d.pop("shared", UNSET))

        def _parse_step_timeout_secs(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[int, None, Unset], data)

        step_timeout_secs = _parse_step_timeout_secs(d.pop("step_timeout_secs", UNSET))

        def _parse_subagents(data: object) -> list[Subagent] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                subagents_type_0 = []
                _subagents_type_0 = data
                for subagents_type_0_item_data in _subagents_type_0:
                    subagents_type_0_item = Subagent.from_dict(
                        subagents_type_0_item_data
                    )

                    subagents_type_0.append(subagents_type_0_item)

                return subagents_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[list[Subagent], None, Unset], data)

        subagents = _parse_subagents(d.pop("subagents", UNSET))

        def _parse_tools(
            data: object,
        ) -> list[AgentFieldsToolsType0Item] | None | Unset:
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
                    tools_type_0_item = check_agent_fields_tools_type_0_item(
                        tools_type_0_item_data
                    )

                    tools_type_0.append(tools_type_0_item)

                return tools_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[list[AgentFieldsToolsType0Item], None, Unset], data)

        tools = _parse_tools(d.pop("tools", UNSET))

        def _parse_version(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[int, None, Unset], data)

        version = _parse_version(d.pop("version", UNSET))

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

        agent_fields = cls(
            approve_tools=approve_tools,
            client_tools=client_tools,
            compaction=compaction,
            concurrency=concurrency,
            http_tools=http_tools,
            instructions=instructions,
            limits=limits,
            loop_guard=loop_guard,
            max_cost_usd=max_cost_usd,
            max_depth=max_depth,
            max_step_output_bytes=max_step_output_bytes,
            max_steps=max_steps,
            max_total_tokens=max_total_tokens,
            mcp_servers=mcp_servers,
            model=model,
            name=name,
            options=options,
            output_schema=output_schema,
            provider=provider,
            reasoning=reasoning,
            reasoning_byte_limit=reasoning_byte_limit,
            shared=shared,
            step_timeout_secs=step_timeout_secs,
            subagents=subagents,
            tools=tools,
            version=version,
            webhook=webhook,
        )

        return agent_fields
