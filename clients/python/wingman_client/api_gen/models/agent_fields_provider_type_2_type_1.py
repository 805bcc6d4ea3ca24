from __future__ import annotations

from typing import Literal

AgentFieldsProviderType2Type1 = Literal["anthropic", "ollama", "openai", "scripted"]

AGENT_FIELDS_PROVIDER_TYPE_2_TYPE_1_VALUES: set[AgentFieldsProviderType2Type1] = {
    "anthropic",
    "ollama",
    "openai",
    "scripted",
}


def check_agent_fields_provider_type_2_type_1(
    value: str,
) -> AgentFieldsProviderType2Type1:
    if value in AGENT_FIELDS_PROVIDER_TYPE_2_TYPE_1_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {AGENT_FIELDS_PROVIDER_TYPE_2_TYPE_1_VALUES!r}"
    )
