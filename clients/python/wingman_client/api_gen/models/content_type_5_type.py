from __future__ import annotations

from typing import Literal

ContentType5Type = Literal["compaction"]

CONTENT_TYPE_5_TYPE_VALUES: set[ContentType5Type] = {
    "compaction",
}


def check_content_type_5_type(value: str) -> ContentType5Type:
    if value in CONTENT_TYPE_5_TYPE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {CONTENT_TYPE_5_TYPE_VALUES!r}"
    )
