from __future__ import annotations

from typing import Literal

AgentFieldsProviderType3Type1 = Literal["anthropic", "ollama", "openai", "scripted"]

AGENT_FIELDS_PROVIDER_TYPE_3_TYPE_1_VALUES: set[AgentFieldsProviderType3Type1] = {
    "anthropic",
    "ollama",
    "openai",
    "scripted",
}


def check_agent_fields_provider_type_3_type_1(
    value: str,
) -> AgentFieldsProviderType3Type1:
    if value in AGENT_FIELDS_PROVIDER_TYPE_3_TYPE_1_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {AGENT_FIELDS_PROVIDER_TYPE_3_TYPE_1_VALUES!r}"
    )
