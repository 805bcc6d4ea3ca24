from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, Union, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.concurrency import Concurrency
    from ..models.webhook import Webhook


T = TypeVar("T", bound="FormationRunBody")


@_attrs_define
class FormationRunBody:
    """The body of `POST /formations/{id}/run`.

    Attributes:
        input_ (Any): Any JSON without NUL characters in its strings and keys
        concurrency (Concurrency | None | Unset):
        priority (int | None | Unset): From -10 to 10, higher first (default 0): claims take the highest priority first,
            then the oldest. It orders sessions, never the messages of one session, and every run this one makes carries it
        webhook (None | Unset | Webhook):
    """

    input_: Any
    concurrency: Concurrency | None | Unset = UNSET
    priority: int | None | Unset = UNSET
    webhook: None | Unset | Webhook = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.concurrency import Concurrency  # noqa: PLC0415
        from ..models.webhook import Webhook  # noqa: PLC0415

        input_ = self.input_

        concurrency: dict[str, Any] | None | Unset
        if isinstance(self.concurrency, Unset):
            concurrency = UNSET
        elif isinstance(self.concurrency, Concurrency):
            concurrency = self.concurrency.to_dict()
        else:
            concurrency = self.concurrency

        priority: int | None | Unset
        if isinstance(self.priority, Unset):
            priority = UNSET
        else:
            priority = self.priority

        webhook: dict[str, Any] | None | Unset
        if isinstance(self.webhook, Unset):
            webhook = UNSET
        elif isinstance(self.webhook, Webhook):
            webhook = self.webhook.to_dict()
        else:
            webhook = self.webhook

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "input": input_,
            }
        )
        if concurrency is not UNSET:
            field_dict["concurrency"] = concurrency
        if priority is not UNSET:
            field_dict["priority"] = priority
        if webhook is not UNSET:
            field_dict["webhook"] = webhook

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.concurrency import Concurrency  # noqa: PLC0415
        from ..models.webhook import Webhook  # noqa: PLC0415

        d = dict(src_dict)
        input_ = d.pop("input")

        def _parse_concurrency(data: object) -> Concurrency | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                concurrency_type_0 = Concurrency.from_dict(data)

                return concurrency_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[Concurrency, None, Unset], data)

        concurrency = _parse_concurrency(d.pop("concurrency", UNSET))

        def _parse_priority(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[int, None, Unset], data)

        priority = _parse_priority(d.pop("priority", UNSET))

        def _parse_webhook(data: object) -> None | Unset | Webhook:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                webhook_type_0 = Webhook.from_dict(data)

                return webhook_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[None, Unset, Webhook], data)

        webhook = _parse_webhook(d.pop("webhook", UNSET))

        formation_run_body = cls(
            input_=input_,
            concurrency=concurrency,
            priority=priority,
            webhook=webhook,
        )

        return formation_run_body
