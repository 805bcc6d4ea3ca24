from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.sandbox_mode import SandboxMode, check_sandbox_mode

T = TypeVar("T", bound="SandboxStatus")


@_attrs_define
class SandboxStatus:
    """What this process's tools run with, as start-up and `GET /health` report it.

    Attributes:
        confined (bool): True when the shell runs confined by Landlock to its paths.
        landlock_abi (int | None): The kernel's Landlock ABI, `null` without Landlock.
        mode (SandboxMode): How far tool processes are confined (`--tool-sandbox`).
        process_tree (str): `pid_namespace`, `user_namespace` or `process_group`.
    """

    confined: bool
    landlock_abi: int | None
    mode: SandboxMode
    process_tree: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        confined = self.confined

        landlock_abi: int | None
        landlock_abi = self.landlock_abi

        mode: str = self.mode

        process_tree = self.process_tree

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "confined": confined,
                "landlock_abi": landlock_abi,
                "mode": mode,
                "process_tree": process_tree,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        confined = d.pop("confined")

        def _parse_landlock_abi(data: object) -> int | None:
            if data is None:
                return data
            return cast(Union[int, None], data)

        landlock_abi = _parse_landlock_abi(d.pop("landlock_abi"))

        mode = check_sandbox_mode(d.pop("mode"))

        process_tree = d.pop("process_tree")

        sandbox_status = cls(
            confined=confined,
            landlock_abi=landlock_abi,
            mode=mode,
            process_tree=process_tree,
        )

        sandbox_status.additional_properties = d
        return sandbox_status

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
