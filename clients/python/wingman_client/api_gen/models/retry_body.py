from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, Union, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.concurrency import Concurrency


T = TypeVar("T", bound="RetryBody")


@_attrs_define
class RetryBody:
    """Where a retry starts (an empty body is fine).

    Attributes:
        concurrency (Concurrency | None | Unset):
        from_step (int | None | Unset): The first step done again; the steps before it are taken from the
            original's checkpoints. By default the original's first step that is
            not whole (its inference and every call answered).
        priority (int | None | Unset): From -10 to 10, higher first (default 0): claims take the highest priority first,
            then the oldest. It orders sessions, never the messages of one session, and every run this one makes carries it
    """

    concurrency: Concurrency | None | Unset = UNSET
    from_step: int | None | Unset = UNSET
    priority: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.concurrency import Concurrency  # noqa: PLC0415

        concurrency: dict[str, Any] | None | Unset
        if isinstance(self.concurrency, Unset):
            concurrency = UNSET
        elif isinstance(self.concurrency, Concurrency):
            concurrency = self.concurrency.to_dict()
        else:
            concurrency = self.concurrency

        from_step: int | None | Unset
        if isinstance(self.from_step, Unset):
            from_step = UNSET
        else:
            from_step = self.from_step

        priority: int | None | Unset
        if isinstance(self.priority, Unset):
            priority = UNSET
        else:
            priority = self.priority

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if concurrency is not UNSET:
            field_dict["concurrency"] = concurrency
        if from_step is not UNSET:
            field_dict["from_step"] = from_step
        if priority is not UNSET:
            field_dict["priority"] = priority

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.concurrency import Concurrency  # noqa: PLC0415

        d = dict(src_dict)

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

        def _parse_from_step(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[int, None, Unset], data)

        from_step = _parse_from_step(d.pop("from_step", UNSET))

        def _parse_priority(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[int, None, Unset], data)

        priority = _parse_priority(d.pop("priority", UNSET))

        retry_body = cls(
            concurrency=concurrency,
            from_step=from_step,
            priority=priority,
        )

        return retry_body
