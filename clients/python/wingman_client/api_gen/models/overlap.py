from __future__ import annotations

from typing import Literal

Overlap = Literal["enqueue", "skip"]

OVERLAP_VALUES: set[Overlap] = {
    "enqueue",
    "skip",
}


def check_overlap(value: str) -> Overlap:
    if value in OVERLAP_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {OVERLAP_VALUES!r}")
