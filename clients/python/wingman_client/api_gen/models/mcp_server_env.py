from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.setting_type_1 import SettingType1


T = TypeVar("T", bound="McpServerEnv")


@_attrs_define
class McpServerEnv:
    """For stdio: the program's environment, on top of a minimal one."""

    additional_properties: dict[str, SettingType1 | str] = _attrs_field(
        init=False, factory=dict
    )

    def to_dict(self) -> dict[str, Any]:
        from ..models.setting_type_1 import SettingType1  # noqa: PLC0415

        field_dict: dict[str, Any] = {}
        for prop_name, prop in self.additional_properties.items():
            if isinstance(prop, SettingType1):
                field_dict[prop_name] = prop.to_dict()
            else:
                field_dict[prop_name] = prop

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.setting_type_1 import SettingType1  # noqa: PLC0415

        d = dict(src_dict)
        mcp_server_env = cls()

        additional_properties = {}
        for prop_name, prop_dict in d.items():

            def _parse_additional_property(data: object) -> SettingType1 | str:
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_setting_type_1 = SettingType1.from_dict(data)

                    return componentsschemas_setting_type_1
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                return cast(Union[SettingType1, str], data)

            additional_property = _parse_additional_property(prop_dict)

            additional_properties[prop_name] = additional_property

        mcp_server_env.additional_properties = additional_properties
        return mcp_server_env

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> SettingType1 | str:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: SettingType1 | str) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
