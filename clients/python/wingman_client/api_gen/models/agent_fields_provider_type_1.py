from __future__ import annotations

from typing import Literal

AgentFieldsProviderType1 = Literal["anthropic", "ollama", "openai", "scripted"]

AGENT_FIELDS_PROVIDER_TYPE_1_VALUES: set[AgentFieldsProviderType1] = {
    "anthropic",
    "ollama",
    "openai",
    "scripted",
}


def check_agent_fields_provider_type_1(value: str) -> AgentFieldsProviderType1:
    if value in AGENT_FIELDS_PROVIDER_TYPE_1_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {AGENT_FIELDS_PROVIDER_TYPE_1_VALUES!r}"
    )
