from __future__ import annotations

from typing import Literal

ContentType3Type = Literal["thinking"]

CONTENT_TYPE_3_TYPE_VALUES: set[ContentType3Type] = {
    "thinking",
}


def check_content_type_3_type(value: str) -> ContentType3Type:
    if value in CONTENT_TYPE_3_TYPE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {CONTENT_TYPE_3_TYPE_VALUES!r}"
    )
