from __future__ import annotations

from typing import Literal

ApproveBodyDecisionsItemDecision = Literal["approve", "edit", "reject", "respond"]

APPROVE_BODY_DECISIONS_ITEM_DECISION_VALUES: set[ApproveBodyDecisionsItemDecision] = {
    "approve",
    "edit",
    "reject",
    "respond",
}


def check_approve_body_decisions_item_decision(
    value: str,
) -> ApproveBodyDecisionsItemDecision:
    if value in APPROVE_BODY_DECISIONS_ITEM_DECISION_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {APPROVE_BODY_DECISIONS_ITEM_DECISION_VALUES!r}"
    )
