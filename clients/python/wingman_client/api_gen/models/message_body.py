from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, Union, cast

from attrs import define as _attrs_define

from ..models.message_body_reasoning_type_1 import (
    MessageBodyReasoningType1,
    check_message_body_reasoning_type_1,
)
from ..models.message_body_reasoning_type_2_type_1 import (
    MessageBodyReasoningType2Type1,
    check_message_body_reasoning_type_2_type_1,
)
from ..models.message_body_reasoning_type_3_type_1 import (
    MessageBodyReasoningType3Type1,
    check_message_body_reasoning_type_3_type_1,
)
from ..models.multitask_strategy import MultitaskStrategy, check_multitask_strategy
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.concurrency import Concurrency
    from ..models.webhook import Webhook


T = TypeVar("T", bound="MessageBody")


@_attrs_define
class MessageBody:
    """A message for a session's agent. `prompt` is accepted for `message`, as
    an early version of the original API named it.

        Attributes:
            message (str): Not blank; at most 256 KiB of UTF-8
            agent_id (None | str | Unset):
            concurrency (Concurrency | None | Unset):
            max_cost_usd (float | None | Unset): A budget in US dollars for this run: it may lower the agent's
                `max_cost_usd`, not raise it
            multitask_strategy (MultitaskStrategy | Unset): What a new message does to its session's unfinished runs (the
                names
                follow LangGraph Server's `multitask_strategy`).
            priority (int | None | Unset): From -10 to 10, higher first (default 0): claims take the highest priority first,
                then the oldest. It orders sessions, never the messages of one session, and every run this one makes carries it
            reasoning (MessageBodyReasoningType1 | MessageBodyReasoningType2Type1 | MessageBodyReasoningType3Type1 | None |
                Unset): How much the model reasons before it answers: `off` (the default), `low`, `medium`, `high`, `max`
            replace (None | str | Unset):
            webhook (None | Unset | Webhook):
    """

    message: str
    agent_id: None | str | Unset = UNSET
    concurrency: Concurrency | None | Unset = UNSET
    max_cost_usd: float | None | Unset = UNSET
    multitask_strategy: MultitaskStrategy | Unset = UNSET
    priority: int | None | Unset = UNSET
    reasoning: (
        MessageBodyReasoningType1
        | MessageBodyReasoningType2Type1
        | MessageBodyReasoningType3Type1
        | None
        | Unset
    ) = UNSET
    replace: None | str | Unset = UNSET
    webhook: None | Unset | Webhook = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.concurrency import Concurrency  # noqa: PLC0415
        from ..models.webhook import Webhook  # noqa: PLC0415

        message = self.message

        agent_id: None | str | Unset
        if isinstance(self.agent_id, Unset):
            agent_id = UNSET
        else:
            agent_id = self.agent_id

        concurrency: dict[str, Any] | None | Unset
        if isinstance(self.concurrency, Unset):
            concurrency = UNSET
        elif isinstance(self.concurrency, Concurrency):
            concurrency = self.concurrency.to_dict()
        else:
            concurrency = self.concurrency

        max_cost_usd: float | None | Unset
        if isinstance(self.max_cost_usd, Unset):
            max_cost_usd = UNSET
        else:
            max_cost_usd = self.max_cost_usd

        multitask_strategy: str | Unset = UNSET
        if not isinstance(self.multitask_strategy, Unset):
            multitask_strategy = self.multitask_strategy

        priority: int | None | Unset
        if isinstance(self.priority, Unset):
            priority = UNSET
        else:
            priority = self.priority

        reasoning: None | str | Unset
        if isinstance(self.reasoning, Unset):
            reasoning = UNSET
        elif isinstance(self.reasoning, str):
            reasoning = self.reasoning
        elif isinstance(self.reasoning, str):
            reasoning = self.reasoning
        elif isinstance(self.reasoning, str):
            reasoning = self.reasoning
        else:
            reasoning = self.reasoning

        replace: None | str | Unset
        if isinstance(self.replace, Unset):
            replace = UNSET
        else:
            replace = self.replace

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
                "message": message,
            }
        )
        if agent_id is not UNSET:
            field_dict["agent_id"] = agent_id
        if concurrency is not UNSET:
            field_dict["concurrency"] = concurrency
        if max_cost_usd is not UNSET:
            field_dict["max_cost_usd"] = max_cost_usd
        if multitask_strategy is not UNSET:
            field_dict["multitask_strategy"] = multitask_strategy
        if priority is not UNSET:
            field_dict["priority"] = priority
        if reasoning is not UNSET:
            field_dict["reasoning"] = reasoning
        if replace is not UNSET:
            field_dict["replace"] = replace
        if webhook is not UNSET:
            field_dict["webhook"] = webhook

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.concurrency import Concurrency  # noqa: PLC0415
        from ..models.webhook import Webhook  # noqa: PLC0415

        d = dict(src_dict)
        message = d.pop("message")

        def _parse_agent_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        agent_id = _parse_agent_id(d.pop("agent_id", UNSET))

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

        def _parse_max_cost_usd(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[float, None, Unset], data)

        max_cost_usd = _parse_max_cost_usd(d.pop("max_cost_usd", UNSET))

        _multitask_strategy = d.pop("multitask_strategy", UNSET)
        multitask_strategy: MultitaskStrategy | Unset
        if isinstance(_multitask_strategy, Unset):
            multitask_strategy = UNSET
        else:
            multitask_strategy = check_multitask_strategy(_multitask_strategy)

        def _parse_priority(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[int, None, Unset], data)

        priority = _parse_priority(d.pop("priority", UNSET))

        def _parse_reasoning(
            data: object,
        ) -> (
            MessageBodyReasoningType1
            | MessageBodyReasoningType2Type1
            | MessageBodyReasoningType3Type1
            | None
            | Unset
        ):
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reasoning_type_1 = check_message_body_reasoning_type_1(data)

                return reasoning_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reasoning_type_2_type_1 = check_message_body_reasoning_type_2_type_1(
                    data
                )

                return reasoning_type_2_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reasoning_type_3_type_1 = check_message_body_reasoning_type_3_type_1(
                    data
                )

                return reasoning_type_3_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                Union[
                    MessageBodyReasoningType1,
                    MessageBodyReasoningType2Type1,
                    MessageBodyReasoningType3Type1,
                    None,
                    Unset,
                ],
                data,
            )

        reasoning = _parse_reasoning(d.pop("reasoning", UNSET))

        def _parse_replace(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        replace = _parse_replace(d.pop("replace", UNSET))

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

        message_body = cls(
            message=message,
            agent_id=agent_id,
            concurrency=concurrency,
            max_cost_usd=max_cost_usd,
            multitask_strategy=multitask_strategy,
            priority=priority,
            reasoning=reasoning,
            replace=replace,
            webhook=webhook,
        )

        return message_body
