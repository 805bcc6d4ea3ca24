from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.fleet_run_status import FleetRunStatus, check_fleet_run_status
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.formation_run_result_outputs import FormationRunResultOutputs
    from ..models.node_row import NodeRow


T = TypeVar("T", bound="FormationRunResult")


@_attrs_define
class FormationRunResult:
    """The answer of `?wait=true`: how the formation run ended, or which of its
    nodes wait for a person or a client.

        Attributes:
            formation_run_id (str):
            outputs (FormationRunResultOutputs): The outputs of its exit nodes, by node.
            status (FleetRunStatus): The life-cycle state of a fleet run.
            error (None | str | Unset):
            waiting (list[NodeRow] | None | Unset): When it answers before the end: the nodes that wait for a person or
                a client (an agent node's `run_id`, a fleet node's `fleet_run_id`,
                whose waiting tasks `GET /runs?fleet_run_id=…&status=waiting` lists).
    """

    formation_run_id: str
    outputs: FormationRunResultOutputs
    status: FleetRunStatus
    error: None | str | Unset = UNSET
    waiting: list[NodeRow] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        formation_run_id = self.formation_run_id

        outputs = self.outputs.to_dict()

        status: str = self.status

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        waiting: list[dict[str, Any]] | None | Unset
        if isinstance(self.waiting, Unset):
            waiting = UNSET
        elif isinstance(self.waiting, list):
            waiting = []
            for waiting_type_0_item_data in self.waiting:
                waiting_type_0_item = waiting_type_0_item_data.to_dict()
                waiting.append(waiting_type_0_item)

        else:
            waiting = self.waiting

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "formation_run_id": formation_run_id,
                "outputs": outputs,
                "status": status,
            }
        )
        if error is not UNSET:
            field_dict["error"] = error
        if waiting is not UNSET:
            field_dict["waiting"] = waiting

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.formation_run_result_outputs import FormationRunResultOutputs  # noqa: PLC0415
        from ..models.node_row import NodeRow  # noqa: PLC0415

        d = dict(src_dict)
        formation_run_id = d.pop("formation_run_id")

        outputs = FormationRunResultOutputs.from_dict(d.pop("outputs"))

        status = check_fleet_run_status(d.pop("status"))

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_waiting(data: object) -> list[NodeRow] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                waiting_type_0 = []
                _waiting_type_0 = data
                for waiting_type_0_item_data in _waiting_type_0:
                    waiting_type_0_item = NodeRow.from_dict(waiting_type_0_item_data)

                    waiting_type_0.append(waiting_type_0_item)

                return waiting_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[list[NodeRow], None, Unset], data)

        waiting = _parse_waiting(d.pop("waiting", UNSET))

        formation_run_result = cls(
            formation_run_id=formation_run_id,
            outputs=outputs,
            status=status,
            error=error,
            waiting=waiting,
        )

        formation_run_result.additional_properties = d
        return formation_run_result

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
