from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, Union, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.branch import Branch
    from ..models.session_view import SessionView


T = TypeVar("T", bound="Rewound")


@_attrs_define
class Rewound:
    """What a rewind did: the branch it set aside (`null` when nothing was
    after the run), and the session as it is now.

        Attributes:
            session (SessionView): A session as the original API showed it: its fields and its
                conversation; and the branches its rewinds set aside.
            set_aside (Branch | None | Unset):
    """

    session: SessionView
    set_aside: Branch | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.branch import Branch  # noqa: PLC0415

        session = self.session.to_dict()

        set_aside: dict[str, Any] | None | Unset
        if isinstance(self.set_aside, Unset):
            set_aside = UNSET
        elif isinstance(self.set_aside, Branch):
            set_aside = self.set_aside.to_dict()
        else:
            set_aside = self.set_aside

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "session": session,
            }
        )
        if set_aside is not UNSET:
            field_dict["set_aside"] = set_aside

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.branch import Branch  # noqa: PLC0415
        from ..models.session_view import SessionView  # noqa: PLC0415

        d = dict(src_dict)
        session = SessionView.from_dict(d.pop("session"))

        def _parse_set_aside(data: object) -> Branch | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                set_aside_type_0 = Branch.from_dict(data)

                return set_aside_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[Branch, None, Unset], data)

        set_aside = _parse_set_aside(d.pop("set_aside", UNSET))

        rewound = cls(
            session=session,
            set_aside=set_aside,
        )

        rewound.additional_properties = d
        return rewound

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
