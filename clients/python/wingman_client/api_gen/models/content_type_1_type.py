from __future__ import annotations

from typing import Literal

ContentType1Type = Literal["tool_use"]

CONTENT_TYPE_1_TYPE_VALUES: set[ContentType1Type] = {
    "tool_use",
}


def check_content_type_1_type(value: str) -> ContentType1Type:
    if value in CONTENT_TYPE_1_TYPE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {CONTENT_TYPE_1_TYPE_VALUES!r}"
    )
