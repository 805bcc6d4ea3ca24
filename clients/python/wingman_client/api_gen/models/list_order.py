from __future__ import annotations

from typing import Literal

ListOrder = Literal["asc", "desc"]

LIST_ORDER_VALUES: set[ListOrder] = {
    "asc",
    "desc",
}


def check_list_order(value: str) -> ListOrder:
    if value in LIST_ORDER_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {LIST_ORDER_VALUES!r}"
    )
