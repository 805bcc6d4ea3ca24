from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, Union, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="TaskBody")


@_attrs_define
class TaskBody:
    """One task: a message for the fleet's agent.

    Attributes:
        message (str): Not blank; at most 256 KiB of UTF-8
        data (Any | None | Unset):
        instructions (None | str | Unset):
        work_dir (None | str | Unset): An absolute path that does not contain the database; with --work-root, inside it
    """

    message: str
    data: Any | None | Unset = UNSET
    instructions: None | str | Unset = UNSET
    work_dir: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        message = self.message

        data: Any | None | Unset
        if isinstance(self.data, Unset):
            data = UNSET
        else:
            data = self.data

        instructions: None | str | Unset
        if isinstance(self.instructions, Unset):
            instructions = UNSET
        else:
            instructions = self.instructions

        work_dir: None | str | Unset
        if isinstance(self.work_dir, Unset):
            work_dir = UNSET
        else:
            work_dir = self.work_dir

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "message": message,
            }
        )
        if data is not UNSET:
            field_dict["data"] = data
        if instructions is not UNSET:
            field_dict["instructions"] = instructions
        if work_dir is not UNSET:
            field_dict["work_dir"] = work_dir

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        message = d.pop("message")

        def _parse_data(data: object) -> Any | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[Any, None, Unset], data)

        data = _parse_data(d.pop("data", UNSET))

        def _parse_instructions(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        instructions = _parse_instructions(d.pop("instructions", UNSET))

        def _parse_work_dir(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        work_dir = _parse_work_dir(d.pop("work_dir", UNSET))

        task_body = cls(
            message=message,
            data=data,
            instructions=instructions,
            work_dir=work_dir,
        )

        return task_body
