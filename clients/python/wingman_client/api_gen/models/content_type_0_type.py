from __future__ import annotations

from typing import Literal

ContentType0Type = Literal["text"]

CONTENT_TYPE_0_TYPE_VALUES: set[ContentType0Type] = {
    "text",
}


def check_content_type_0_type(value: str) -> ContentType0Type:
    if value in CONTENT_TYPE_0_TYPE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {CONTENT_TYPE_0_TYPE_VALUES!r}"
    )
