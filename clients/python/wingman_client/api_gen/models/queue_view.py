from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.budget_view import BudgetView
    from ..models.key_count import KeyCount
    from ..models.next_run import NextRun
    from ..models.priority_count import PriorityCount
    from ..models.queued_why import QueuedWhy


T = TypeVar("T", bound="QueueView")


@_attrs_define
class QueueView:
    """The queue as `GET /queue` shows it: what waits and why, by priority and
    by concurrency key, and what a claim would take next.

        Attributes:
            budgets (list[BudgetView]): Provider budgets (a credential's, or an agent's `agent:<id>`):
                limits in force, a pause, and the inferences waiting for their share
                (a run that waits a second or more is handed back meanwhile and
                counted under `queued.rate_limited`; a shorter wait keeps its worker).
            by_priority (list[PriorityCount]): Queued and running runs by priority, highest first.
            keys (list[KeyCount]): Concurrency keys with queued or running runs, the most queued first
                (at most 100).
            next_ (list[NextRun]): The ready runs a claim would take next, in order.
            queued (QueuedWhy): Queued runs by why they are not running yet.
            running (int): Runs a worker holds now.
            waiting (int): Runs that wait for a person, their client or their sub-agents (none
                holds a worker or a slot of its key).
    """

    budgets: list[BudgetView]
    by_priority: list[PriorityCount]
    keys: list[KeyCount]
    next_: list[NextRun]
    queued: QueuedWhy
    running: int
    waiting: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        budgets = []
        for budgets_item_data in self.budgets:
            budgets_item = budgets_item_data.to_dict()
            budgets.append(budgets_item)

        by_priority = []
        for by_priority_item_data in self.by_priority:
            by_priority_item = by_priority_item_data.to_dict()
            by_priority.append(by_priority_item)

        keys = []
        for keys_item_data in self.keys:
            keys_item = keys_item_data.to_dict()
            keys.append(keys_item)

        next_ = []
        for next_item_data in self.next_:
            next_item = next_item_data.to_dict()
            next_.append(next_item)

        queued = self.queued.to_dict()

        running = self.running

        waiting = self.waiting

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "budgets": budgets,
                "by_priority": by_priority,
                "keys": keys,
                "next": next_,
                "queued": queued,
                "running": running,
                "waiting": waiting,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.budget_view import BudgetView  # noqa: PLC0415
        from ..models.key_count import KeyCount  # noqa: PLC0415
        from ..models.next_run import NextRun  # noqa: PLC0415
        from ..models.priority_count import PriorityCount  # noqa: PLC0415
        from ..models.queued_why import QueuedWhy  # noqa: PLC0415

        d = dict(src_dict)
        budgets = []
        _budgets = d.pop("budgets")
        for budgets_item_data in _budgets:
            budgets_item = BudgetView.from_dict(budgets_item_data)

            budgets.append(budgets_item)

        by_priority = []
        _by_priority = d.pop("by_priority")
        for by_priority_item_data in _by_priority:
            by_priority_item = PriorityCount.from_dict(by_priority_item_data)

            by_priority.append(by_priority_item)

        keys = []
        _keys = d.pop("keys")
        for keys_item_data in _keys:
            keys_item = KeyCount.from_dict(keys_item_data)

            keys.append(keys_item)

        next_ = []
        _next_ = d.pop("next")
        for next_item_data in _next_:
            next_item = NextRun.from_dict(next_item_data)

            next_.append(next_item)

        queued = QueuedWhy.from_dict(d.pop("queued"))

        running = d.pop("running")

        waiting = d.pop("waiting")

        queue_view = cls(
            budgets=budgets,
            by_priority=by_priority,
            keys=keys,
            next_=next_,
            queued=queued,
            running=running,
            waiting=waiting,
        )

        queue_view.additional_properties = d
        return queue_view

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
