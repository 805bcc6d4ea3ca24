from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.task_body import TaskBody


T = TypeVar("T", bound="ScheduleBodyTargetType1")


@_attrs_define
class ScheduleBodyTargetType1:
    """A fleet run of these tasks

    Attributes:
        fleet_id (str):
        tasks (list[TaskBody]):
    """

    fleet_id: str
    tasks: list[TaskBody]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        fleet_id = self.fleet_id

        tasks = []
        for tasks_item_data in self.tasks:
            tasks_item = tasks_item_data.to_dict()
            tasks.append(tasks_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "fleet_id": fleet_id,
                "tasks": tasks,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.task_body import TaskBody  # noqa: PLC0415

        d = dict(src_dict)
        fleet_id = d.pop("fleet_id")

        tasks = []
        _tasks = d.pop("tasks")
        for tasks_item_data in _tasks:
            tasks_item = TaskBody.from_dict(tasks_item_data)

            tasks.append(tasks_item)

        schedule_body_target_type_1 = cls(
            fleet_id=fleet_id,
            tasks=tasks,
        )

        schedule_body_target_type_1.additional_properties = d
        return schedule_body_target_type_1

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
