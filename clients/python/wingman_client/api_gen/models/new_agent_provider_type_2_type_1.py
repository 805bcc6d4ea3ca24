from __future__ import annotations

from typing import Literal

NewAgentProviderType2Type1 = Literal["anthropic", "ollama", "openai", "scripted"]

NEW_AGENT_PROVIDER_TYPE_2_TYPE_1_VALUES: set[NewAgentProviderType2Type1] = {
    "anthropic",
    "ollama",
    "openai",
    "scripted",
}


def check_new_agent_provider_type_2_type_1(value: str) -> NewAgentProviderType2Type1:
    if value in NEW_AGENT_PROVIDER_TYPE_2_TYPE_1_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {NEW_AGENT_PROVIDER_TYPE_2_TYPE_1_VALUES!r}"
    )
