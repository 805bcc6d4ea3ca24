from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, Union, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.http_tool_headers import HttpToolHeaders
    from ..models.http_tool_input_schema import HttpToolInputSchema


T = TypeVar("T", bound="HttpTool")


@_attrs_define
class HttpTool:
    """A tool served by a service of the user's: the worker POSTs
    `{"run_id", "call_id", "tool", "input"}` to `url`, signed, with an
    idempotency key, and the answer's body is the result.

        Attributes:
            input_schema (HttpToolInputSchema): A JSON Schema of its input object.
            name (str): The name the model calls it by: `[A-Za-z0-9_-]`, at most 64 characters.
            url (str): An `http` or `https` URL.
            description (str | Unset): What the tool does, for the model.
            headers (HttpToolHeaders | Unset): Headers sent with every call (an API key, say).
            timeout_ms (int | None | Unset): How long one attempt may take (default 30,000; at most 600,000).
    """

    input_schema: HttpToolInputSchema
    name: str
    url: str
    description: str | Unset = UNSET
    headers: HttpToolHeaders | Unset = UNSET
    timeout_ms: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        input_schema = self.input_schema.to_dict()

        name = self.name

        url = self.url

        description = self.description

        headers: dict[str, Any] | Unset = UNSET
        if not isinstance(self.headers, Unset):
            headers = self.headers.to_dict()

        timeout_ms: int | None | Unset
        if isinstance(self.timeout_ms, Unset):
            timeout_ms = UNSET
        else:
            timeout_ms = self.timeout_ms

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "input_schema": input_schema,
                "name": name,
                "url": url,
            }
        )
        if description is not UNSET:
            field_dict["description"] = description
        if headers is not UNSET:
            field_dict["headers"] = headers
        if timeout_ms is not UNSET:
            field_dict["timeout_ms"] = timeout_ms

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.http_tool_headers import HttpToolHeaders  # noqa: PLC0415
        from ..models.http_tool_input_schema import HttpToolInputSchema  # noqa: PLC0415

        d = dict(src_dict)
        input_schema = HttpToolInputSchema.from_dict(d.pop("input_schema"))

        name = d.pop("name")

        url = d.pop("url")

        description = d.pop("description", UNSET)

        _headers = d.pop("headers", UNSET)
        headers: HttpToolHeaders | Unset
        if isinstance(_headers, Unset):
            headers = UNSET
        else:
            headers = HttpToolHeaders.from_dict(_headers)

        def _parse_timeout_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[int, None, Unset], data)

        timeout_ms = _parse_timeout_ms(d.pop("timeout_ms", UNSET))

        http_tool = cls(
            input_schema=input_schema,
            name=name,
            url=url,
            description=description,
            headers=headers,
            timeout_ms=timeout_ms,
        )

        return http_tool
