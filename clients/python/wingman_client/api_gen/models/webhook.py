from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="Webhook")


@_attrs_define
class Webhook:
    """Where an end is announced: `"webhook": {"url"}` on a submission, or an
    agent's default for the runs of its messages.

        Attributes:
            url (str): An `http` or `https` URL that takes a POST; at most 2,048 bytes. Its
                host must be public unless the operator allows it
                (`--allow-webhook-host`). Example: https://example.com/hooks/wingman.
    """

    url: str

    def to_dict(self) -> dict[str, Any]:
        url = self.url

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "url": url,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        url = d.pop("url")

        webhook = cls(
            url=url,
        )

        return webhook
