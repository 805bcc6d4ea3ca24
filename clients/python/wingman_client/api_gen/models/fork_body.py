from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, Union, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="ForkBody")


@_attrs_define
class ForkBody:
    """Where a fork starts from.

    Attributes:
        at (None | str | Unset):
        work_dir (None | str | Unset): An absolute path that does not contain the database; with --work-root, inside it
    """

    at: None | str | Unset = UNSET
    work_dir: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        at: None | str | Unset
        if isinstance(self.at, Unset):
            at = UNSET
        else:
            at = self.at

        work_dir: None | str | Unset
        if isinstance(self.work_dir, Unset):
            work_dir = UNSET
        else:
            work_dir = self.work_dir

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if at is not UNSET:
            field_dict["at"] = at
        if work_dir is not UNSET:
            field_dict["work_dir"] = work_dir

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        at = _parse_at(d.pop("at", UNSET))

        def _parse_work_dir(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        work_dir = _parse_work_dir(d.pop("work_dir", UNSET))

        fork_body = cls(
            at=at,
            work_dir=work_dir,
        )

        return fork_body
