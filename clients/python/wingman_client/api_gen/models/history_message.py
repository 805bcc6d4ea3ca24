from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.history_role import HistoryRole, check_history_role

if TYPE_CHECKING:
    from ..models.content_type_0 import ContentType0
    from ..models.content_type_1 import ContentType1
    from ..models.content_type_2 import ContentType2
    from ..models.content_type_3 import ContentType3
    from ..models.content_type_4 import ContentType4
    from ..models.content_type_5 import ContentType5


T = TypeVar("T", bound="HistoryMessage")


@_attrs_define
class HistoryMessage:
    """A message of a session's history. Tool results travel in `user`
    messages, as in the Anthropic Messages API.

        Attributes:
            content (list[ContentType0 | ContentType1 | ContentType2 | ContentType3 | ContentType4 | ContentType5]):
            role (HistoryRole): The roles a history shows: a tool's results are the user's, and a
                compaction marker's role is its own.
    """

    content: list[
        ContentType0
        | ContentType1
        | ContentType2
        | ContentType3
        | ContentType4
        | ContentType5
    ]
    role: HistoryRole
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.content_type_0 import ContentType0  # noqa: PLC0415
        from ..models.content_type_1 import ContentType1  # noqa: PLC0415
        from ..models.content_type_2 import ContentType2  # noqa: PLC0415
        from ..models.content_type_3 import ContentType3  # noqa: PLC0415
        from ..models.content_type_4 import ContentType4  # noqa: PLC0415

        content = []
        for content_item_data in self.content:
            content_item: dict[str, Any]
            if isinstance(content_item_data, ContentType0):
                content_item = content_item_data.to_dict()
            elif isinstance(content_item_data, ContentType1):
                content_item = content_item_data.to_dict()
            elif isinstance(content_item_data, ContentType2):
                content_item = content_item_data.to_dict()
            elif isinstance(content_item_data, ContentType3):
                content_item = content_item_data.to_dict()
            elif isinstance(content_item_data, ContentType4):
                content_item = content_item_data.to_dict()
            else:
                content_item = content_item_data.to_dict()

            content.append(content_item)

        role: str = self.role

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "content": content,
                "role": role,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.content_type_0 import ContentType0  # noqa: PLC0415
        from ..models.content_type_1 import ContentType1  # noqa: PLC0415
        from ..models.content_type_2 import ContentType2  # noqa: PLC0415
        from ..models.content_type_3 import ContentType3  # noqa: PLC0415
        from ..models.content_type_4 import ContentType4  # noqa: PLC0415
        from ..models.content_type_5 import ContentType5  # noqa: PLC0415

        d = dict(src_dict)
        content = []
        _content = d.pop("content")
        for content_item_data in _content:

            def _parse_content_item(
                data: object,
            ) -> (
                ContentType0
                | ContentType1
                | ContentType2
                | ContentType3
                | ContentType4
                | ContentType5
            ):
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_content_type_0 = ContentType0.from_dict(data)

                    return componentsschemas_content_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_content_type_1 = ContentType1.from_dict(data)

                    return componentsschemas_content_type_1
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_content_type_2 = ContentType2.from_dict(data)

                    return componentsschemas_content_type_2
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_content_type_3 = ContentType3.from_dict(data)

                    return componentsschemas_content_type_3
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_content_type_4 = ContentType4.from_dict(data)

                    return componentsschemas_content_type_4
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_content_type_5 = ContentType5.from_dict(data)

                return componentsschemas_content_type_5

            content_item = _parse_content_item(content_item_data)

            content.append(content_item)

        role = check_history_role(d.pop("role"))

        history_message = cls(
            content=content,
            role=role,
        )

        history_message.additional_properties = d
        return history_message

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
