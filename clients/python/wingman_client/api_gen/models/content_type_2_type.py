from __future__ import annotations

from typing import Literal

ContentType2Type = Literal["tool_result"]

CONTENT_TYPE_2_TYPE_VALUES: set[ContentType2Type] = {
    "tool_result",
}


def check_content_type_2_type(value: str) -> ContentType2Type:
    if value in CONTENT_TYPE_2_TYPE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {CONTENT_TYPE_2_TYPE_VALUES!r}"
    )
