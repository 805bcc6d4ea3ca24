from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.audit_entry import AuditEntry


T = TypeVar("T", bound="AuditPage")


@_attrs_define
class AuditPage:
    """A page of the audit log, the newest first.

    Attributes:
        entries (list[AuditEntry]):
        next_after (None | str): Pass as `after` for the next (older) page; `null` on the last one.
    """

    entries: list[AuditEntry]
    next_after: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        entries = []
        for entries_item_data in self.entries:
            entries_item = entries_item_data.to_dict()
            entries.append(entries_item)

        next_after: None | str
        next_after = self.next_after

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "entries": entries,
                "next_after": next_after,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.audit_entry import AuditEntry  # noqa: PLC0415

        d = dict(src_dict)
        entries = []
        _entries = d.pop("entries")
        for entries_item_data in _entries:
            entries_item = AuditEntry.from_dict(entries_item_data)

            entries.append(entries_item)

        def _parse_next_after(data: object) -> None | str:
            if data is None:
                return data
            return cast(Union[None, str], data)

        next_after = _parse_next_after(d.pop("next_after"))

        audit_page = cls(
            entries=entries,
            next_after=next_after,
        )

        audit_page.additional_properties = d
        return audit_page

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
