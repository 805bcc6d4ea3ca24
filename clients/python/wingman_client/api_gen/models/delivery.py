from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from dateutil.parser import isoparse

from ..models.delivery_status import DeliveryStatus, check_delivery_status
from ..models.subject import Subject, check_subject
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.attempt import Attempt


T = TypeVar("T", bound="Delivery")


@_attrs_define
class Delivery:
    """A delivery as stored, with its attempts (oldest first) where read for a client.

    Attributes:
        attempts (int): Attempts begun, including one under way.
        created_at (datetime.datetime):
        id (str):
        log (list[Attempt]): The attempts that finished, oldest first.
        status (DeliveryStatus): Where a delivery stands.
        subject (Subject): What ended.
        subject_id (str):
        url (str):
        delivered_at (None | str | Unset):
        next_attempt_at (None | str | Unset):
    """

    attempts: int
    created_at: datetime.datetime
    id: str
    log: list[Attempt]
    status: DeliveryStatus
    subject: Subject
    subject_id: str
    url: str
    delivered_at: None | str | Unset = UNSET
    next_attempt_at: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attempts = self.attempts

        created_at = self.created_at.isoformat()

        id = self.id

        log = []
        for log_item_data in self.log:
            log_item = log_item_data.to_dict()
            log.append(log_item)

        status: str = self.status

        subject: str = self.subject

        subject_id = self.subject_id

        url = self.url

        delivered_at: None | str | Unset
        if isinstance(self.delivered_at, Unset):
            delivered_at = UNSET
        else:
            delivered_at = self.delivered_at

        next_attempt_at: None | str | Unset
        if isinstance(self.next_attempt_at, Unset):
            next_attempt_at = UNSET
        else:
            next_attempt_at = self.next_attempt_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempts": attempts,
                "created_at": created_at,
                "id": id,
                "log": log,
                "status": status,
                "subject": subject,
                "subject_id": subject_id,
                "url": url,
            }
        )
        if delivered_at is not UNSET:
            field_dict["delivered_at"] = delivered_at
        if next_attempt_at is not UNSET:
            field_dict["next_attempt_at"] = next_attempt_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.attempt import Attempt  # noqa: PLC0415

        d = dict(src_dict)
        attempts = d.pop("attempts")

        created_at = isoparse(d.pop("created_at"))

        id = d.pop("id")

        log = []
        _log = d.pop("log")
        for log_item_data in _log:
            log_item = Attempt.from_dict(log_item_data)

            log.append(log_item)

        status = check_delivery_status(d.pop("status"))

        subject = check_subject(d.pop("subject"))

        subject_id = d.pop("subject_id")

        url = d.pop("url")

        def _parse_delivered_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        delivered_at = _parse_delivered_at(d.pop("delivered_at", UNSET))

        def _parse_next_attempt_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        next_attempt_at = _parse_next_attempt_at(d.pop("next_attempt_at", UNSET))

        delivery = cls(
            attempts=attempts,
            created_at=created_at,
            id=id,
            log=log,
            status=status,
            subject=subject,
            subject_id=subject_id,
            url=url,
            delivered_at=delivered_at,
            next_attempt_at=next_attempt_at,
        )

        delivery.additional_properties = d
        return delivery

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
