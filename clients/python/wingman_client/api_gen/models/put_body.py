from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.put_body_providers import PutBodyProviders


T = TypeVar("T", bound="PutBody")


@_attrs_define
class PutBody:
    """The body of `PUT /provider/auth`: `{"providers": {"<name>": {"type": "api_key", "key": "…"}}}`.

    Attributes:
        providers (PutBodyProviders): Keyed by credential name: a provider ID, or `provider:label`; at least one
    """

    providers: PutBodyProviders

    def to_dict(self) -> dict[str, Any]:
        providers = self.providers.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "providers": providers,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.put_body_providers import PutBodyProviders  # noqa: PLC0415

        d = dict(src_dict)
        providers = PutBodyProviders.from_dict(d.pop("providers"))

        put_body = cls(
            providers=providers,
        )

        return put_body
