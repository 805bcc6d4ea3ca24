from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ProviderInfo")


@_attrs_define
class ProviderInfo:
    """What `GET /provider` shows about a provider.

    Attributes:
        auth (str): How it authenticates: `api_key`, `api_key_optional` or `none`.
        default_base_url (None | str): Where requests go when `options.base_url` is not set.
        env (None | str): The environment variable read when no key is stored.
        id (str):
        models (list[str]): Example models; any model the server knows may be named.
        name (str):
        options (list[str]): The recognised `options` keys (docs/providers.md explains each).
    """

    auth: str
    default_base_url: None | str
    env: None | str
    id: str
    models: list[str]
    name: str
    options: list[str]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        auth = self.auth

        default_base_url: None | str
        default_base_url = self.default_base_url

        env: None | str
        env = self.env

        id = self.id

        models = self.models

        name = self.name

        options = self.options

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "auth": auth,
                "default_base_url": default_base_url,
                "env": env,
                "id": id,
                "models": models,
                "name": name,
                "options": options,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        auth = d.pop("auth")

        def _parse_default_base_url(data: object) -> None | str:
            if data is None:
                return data
            return cast(Union[None, str], data)

        default_base_url = _parse_default_base_url(d.pop("default_base_url"))

        def _parse_env(data: object) -> None | str:
            if data is None:
                return data
            return cast(Union[None, str], data)

        env = _parse_env(d.pop("env"))

        id = d.pop("id")

        models = cast(list[str], d.pop("models"))

        name = d.pop("name")

        options = cast(list[str], d.pop("options"))

        provider_info = cls(
            auth=auth,
            default_base_url=default_base_url,
            env=env,
            id=id,
            models=models,
            name=name,
            options=options,
        )

        provider_info.additional_properties = d
        return provider_info

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
