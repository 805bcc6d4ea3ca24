from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, Union, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.limit import Limit
    from ..models.modalities import Modalities
    from ..models.price import Price


T = TypeVar("T", bound="ModelInfo")


@_attrs_define
class ModelInfo:
    """One model, as `GET /provider/{id}/models/{model}` shows it.

    Fields follow models.dev so that clients written against it keep working.
    `id` and `provider` are not written in `models.json` (they are its keys)
    but are filled in, so a model read on its own still says what it is.

        Attributes:
            id (str): The model's id, as an agent's `model` names it.
            limit (Limit): A model's limits in tokens. Zero means unknown: a model known only from
                the price table has no published limit here, and a number that says so
                is easier for clients than a missing object.
            name (str): A name for people; the id when nothing better is known.
            provider (str): The provider's id (`anthropic`, `openai`, …).
            attachment (bool | Unset): Whether the model accepts files or images along with text.
            cost (None | Price | Unset):
            family (None | str | Unset): The line of models this one belongs to (`claude-sonnet`, `gpt-4o`),
                so that clients can group versions of one model together.
            modalities (Modalities | Unset): The kinds of content a model reads and writes (`text`, `image`, `pdf`, …).
            reasoning (bool | Unset): Whether the model thinks before it answers, which costs output tokens.
            release_date (None | str | Unset): When the model was released (`YYYY-MM-DD`), to tell old from new.
            structured_output (bool | None | Unset): Whether the provider constrains the model's answer to an
                `output_schema`; absent when not known, because Wingman validates
                the answer either way.
            tool_call (bool | Unset): Whether the model can call tools; an agent with tools needs one that can.
    """

    id: str
    limit: Limit
    name: str
    provider: str
    attachment: bool | Unset = UNSET
    cost: None | Price | Unset = UNSET
    family: None | str | Unset = UNSET
    modalities: Modalities | Unset = UNSET
    reasoning: bool | Unset = UNSET
    release_date: None | str | Unset = UNSET
    structured_output: bool | None | Unset = UNSET
    tool_call: bool | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.price import Price  # noqa: PLC0415

        id = self.id

        limit = self.limit.to_dict()

        name = self.name

        provider = self.provider

        attachment = self.attachment

        cost: dict[str, Any] | None | Unset
        if isinstance(self.cost, Unset):
            cost = UNSET
        elif isinstance(self.cost, Price):
            cost = self.cost.to_dict()
        else:
            cost = self.cost

        family: None | str | Unset
        if isinstance(self.family, Unset):
            family = UNSET
        else:
            family = self.family

        modalities: dict[str, Any] | Unset = UNSET
        if not isinstance(self.modalities, Unset):
            modalities = self.modalities.to_dict()

        reasoning = self.reasoning

        release_date: None | str | Unset
        if isinstance(self.release_date, Unset):
            release_date = UNSET
        else:
            release_date = self.release_date

        structured_output: bool | None | Unset
        if isinstance(self.structured_output, Unset):
            structured_output = UNSET
        else:
            structured_output = self.structured_output

        tool_call = self.tool_call

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "limit": limit,
                "name": name,
                "provider": provider,
            }
        )
        if attachment is not UNSET:
            field_dict["attachment"] = attachment
        if cost is not UNSET:
            field_dict["cost"] = cost
        if family is not UNSET:
            field_dict["family"] = family
        if modalities is not UNSET:
            field_dict["modalities"] = modalities
        if reasoning is not UNSET:
            field_dict["reasoning"] = reasoning
        if release_date is not UNSET:
            field_dict["release_date"] = release_date
        if structured_output is not UNSET:
            field_dict["structured_output"] = structured_output
        if tool_call is not UNSET:
            field_dict["tool_call"] = tool_call

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.limit import Limit  # noqa: PLC0415
        from ..models.modalities import Modalities  # noqa: PLC0415
        from ..models.price import Price  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        limit = Limit.from_dict(d.pop("limit"))

        name = d.pop("name")

        provider = d.pop("provider")

        attachment = d.pop("attachment", UNSET)

        def _parse_cost(data: object) -> None | Price | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                cost_type_0 = Price.from_dict(data)

                return cost_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Union[None, Price, Unset], data)

        cost = _parse_cost(d.pop("cost", UNSET))

        def _parse_family(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        family = _parse_family(d.pop("family", UNSET))

        _modalities = d.pop("modalities", UNSET)
        modalities: Modalities | Unset
        if isinstance(_modalities, Unset):
            modalities = UNSET
        else:
            modalities = Modalities.from_dict(_modalities)

        reasoning = d.pop("reasoning", UNSET)

        def _parse_release_date(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[None, str, Unset], data)

        release_date = _parse_release_date(d.pop("release_date", UNSET))

        def _parse_structured_output(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(Union[bool, None, Unset], data)

        structured_output = _parse_structured_output(d.pop("structured_output", UNSET))

        tool_call = d.pop("tool_call", UNSET)

        model_info = cls(
            id=id,
            limit=limit,
            name=name,
            provider=provider,
            attachment=attachment,
            cost=cost,
            family=family,
            modalities=modalities,
            reasoning=reasoning,
            release_date=release_date,
            structured_output=structured_output,
            tool_call=tool_call,
        )

        return model_info
