from __future__ import annotations

from typing import Literal

ContentType4Type = Literal["redacted_thinking"]

CONTENT_TYPE_4_TYPE_VALUES: set[ContentType4Type] = {
    "redacted_thinking",
}


def check_content_type_4_type(value: str) -> ContentType4Type:
    if value in CONTENT_TYPE_4_TYPE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {CONTENT_TYPE_4_TYPE_VALUES!r}"
    )
