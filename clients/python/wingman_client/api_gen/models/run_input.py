from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.reasoning import Reasoning, check_reasoning
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.concurrency import Concurrency
    from ..models.node_ref import NodeRef
    from ..models.parent_call import ParentCall
    from ..models.retry_of import RetryOf


T = TypeVar("T", bound="RunInput")


@_attrs_define
class RunInput:
    """What the submitter asked the run to do.

    Attributes:
        message (str):
        concurrency (Concurrency | None | Unset):
        owner (str | Unset): Whose runs they are: the submitter's (a message's: its session's
            owner's). Set by the server, never by a client; not written for the
            first admin, which an input that names none stands for.
        priority (int | Unset): From -10 to 10, higher first (0 when not given): claims take the
            highest first, then the oldest, among runs at the head of their
            session, so it orders sessions, never one session's messages.
        traceparent (None | str | Unset): The W3C `traceparent` its spans are made under, the same for every
            attempt (`crate::otel`).
        data (Any | Unset):
        instructions (None | str | Unset):
        max_cost_usd (float | None | Unset): A budget in US dollars lower than the agent's `max_cost_usd`, for this run
            only.
        max_total_tokens (int | None | Unset): A token budget lower than the agent's `max_total_tokens`, for this
            run only (a sub-agent's share of its parent's).
        node (NodeRef | None | Unset):
        parent (None | ParentCall | Unset):
        reasoning (None | Reasoning | Unset):
        retry_of (None | RetryOf | Unset):
        webhook (None | str | Unset): The URL the run's end is announced to (`crate::domain::webhook`).
    """

    message: str
    concurrency: Concurrency | None | Unset = UNSET
    owner: str | Unset = UNSET
    priority: int | Unset = UNSET
    traceparent: None | str | Unset = UNSET
    data: Any | Unset = UNSET
    instructions: None | str | Unset = UNSET
    max_cost_usd: float | None | Unset = UNSET
    max_total_tokens: int | None | Unset = UNSET
    node: NodeRef | None | Unset = UNSET
    parent: None | ParentCall | Unset = UNSET
    reasoning: None | Reasoning | Unset = UNSET
    retry_of: None | RetryOf | Unset = UNSET
    webhook: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.concurrency import Concurrency  # noqa: PLC0415
        from ..models.node_ref import NodeRef  # noqa: PLC0415
        from ..models.parent_call import ParentCall  # noqa: PLC0415
        from ..models.retry_of import RetryOf  # noqa: PLC0415

        message = self.message

        concurrency: dict[str, Any] | None | Unset
        if isinstance(self.concurrency, Unset):
            concurrency = UNSET
        elif isinstance(self.concurrency, Concurrency):
            concurrency = self.concurrency.to_dict()
        else:
            concurrency = self.concurrency

        owner = self.owner

        priority = self.priority

        traceparent: None | str | Unset
        if isinstance(self.traceparent, Unset):
            traceparent = UNSET
        else:
            traceparent = self.traceparent

        data = self.data

        instructions: None | str | Unset
        if isinstance(self.instructions, Unset):
            instructions = UNSET
        else:
            instructions = self.instructions

        max_cost_usd: float | None | Unset
        if isinstance(self.max_cost_usd, Unset):
            max_cost_usd = UNSET
        else:
            max_cost_usd = self.max_cost_usd

        max_total_tokens: int | None | Unset
        if isinstance(self.max_total_tokens, Unset):
            max_total_tokens = UNSET
        else:
            max_total_tokens = self.max_total_tokens

        node: dict[str, Any] | None | Unset
        if isinstance(self.node, Unset):
            node = UNSET
        elif isinstance(self.node, NodeRef):
            node = self.node.to_dict()
        else:
            node = self.node

        parent: dict[str, Any] | None | Unset
        if isinstance(self.parent, Unset):
            parent = UNSET
        elif isinstance(self.parent, ParentCall):
            parent = self.parent.to_dict()
        else:
            parent = self.parent

        reasoning: None | str | Unset
        if isinstance(self.reasoning, Unset):
            reasoning = UNSET
        elif isinstance(self.reasoning, str):
            reasoning = self.reasoning
        else:
            reasoning = self.reasoning

        retry_of: dict[str, Any] | None | Unset
        if isinstance(self.retry_of, Unset):
            retry_of = UNSET
        elif isinstance(self.retry_of, RetryOf):
            retry_of = self.retry_of.to_dict()
        else:
            retry_of = self.retry_of

        webhook: None | str | Unset
        if isinstance(self.webhook, Unset):
            webhook = UNSET
        else:
            webhook = self.webhook

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "message": message,
            }
        )
        if concurrency is not UNSET:
            field_dict["concurrency"] = concurrency
        if owner is not UNSET:
            field_dict["owner"] = owner
        if priority is not UNSET:
            field_dict["priority"] = priority
        if traceparent is not UNSET:
            field_dict["traceparent"] = traceparent
        if data is not UNSET:
            field_dict["data"] = data
        if instructions is not UNSET:
            field_dict["instructions"] = instructions
        if max_cost_usd is not UNSET:
            field_dict["max_cost_usd"] = max_cost_usd
        if max_total_tokens is not UNSET:
            field_dict["max_total_tokens"] = max_total_tokens
        if node is not UNSET:
            field_dict["node"] = node
        if parent is not UNSET:
            field_dict["parent"] = parent
        if reasoning is not UNSET:
            field_dict["reasoning"] = reasoning
        if retry_of is not UNSET:
            field_dict["retry_of"] = retry_of
        if webhook is not UNSET:
            field_dict["webhook"] = webhook

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.concurrency import Concurrency  # noqa: PLC0415
        from ..models.node_ref import NodeRef  # noqa: PLC0415
        from ..models.parent_call import ParentCall  # noqa: PLC0415
        from ..models.retry_of import RetryOf  # noqa: PLC0415

        d = dict(src_dict)
        message = d.pop("message")

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

        owner = d.pop("owner", UNSET)

        priority = d.pop("priority", UNSET)

        def _parse_traceparent(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        traceparent = _parse_traceparent(d.pop("traceparent", UNSET))

        data = d.pop("data", UNSET)

        def _parse_instructions(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        instructions = _parse_instructions(d.pop("instructions", UNSET))

        def _parse_max_cost_usd(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[float, None, Unset], data)

        max_cost_usd = _parse_max_cost_usd(d.pop("max_cost_usd", UNSET))

        def _parse_max_total_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[int, None, Unset], data)

        max_total_tokens = _parse_max_total_tokens(d.pop("max_total_tokens", UNSET))

        def _parse_node(data: object) -> NodeRef | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                node_type_0 = NodeRef.from_dict(data)

                return node_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[NodeRef, None, Unset], data)

        node = _parse_node(d.pop("node", UNSET))

        def _parse_parent(data: object) -> None | ParentCall | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                parent_type_0 = ParentCall.from_dict(data)

                return parent_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[None, ParentCall, Unset], data)

        parent = _parse_parent(d.pop("parent", UNSET))

        def _parse_reasoning(data: object) -> None | Reasoning | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reasoning_type_0 = check_reasoning(data)

                return reasoning_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[None, Reasoning, Unset], data)

        reasoning = _parse_reasoning(d.pop("reasoning", UNSET))

        def _parse_retry_of(data: object) -> None | RetryOf | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                retry_of_type_0 = RetryOf.from_dict(data)

                return retry_of_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[None, RetryOf, Unset], data)

        retry_of = _parse_retry_of(d.pop("retry_of", UNSET))

        def _parse_webhook(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        webhook = _parse_webhook(d.pop("webhook", UNSET))

        run_input = cls(
            message=message,
            concurrency=concurrency,
            owner=owner,
            priority=priority,
            traceparent=traceparent,
            data=data,
            instructions=instructions,
            max_cost_usd=max_cost_usd,
            max_total_tokens=max_total_tokens,
            node=node,
            parent=parent,
            reasoning=reasoning,
            retry_of=retry_of,
            webhook=webhook,
        )

        run_input.additional_properties = d
        return run_input

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
