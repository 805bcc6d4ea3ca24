from __future__ import annotations

import datetime
from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.get_owner_usage_response_401 import GetOwnerUsageResponse401
from ...models.get_owner_usage_response_403 import GetOwnerUsageResponse403
from ...models.get_owner_usage_response_503 import GetOwnerUsageResponse503
from ...models.usage_view import UsageView
from ...types import UNSET, Response, Unset


def _get_kwargs(
    owner: str,
    *,
    from_: datetime.date | Unset = UNSET,
    to: datetime.date | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_from_: str | Unset = UNSET
    if not isinstance(from_, Unset):
        json_from_ = from_.isoformat()
    params["from"] = json_from_

    json_to: str | Unset = UNSET
    if not isinstance(to, Unset):
        json_to = to.isoformat()
    params["to"] = json_to

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/owners/{owner}/usage".format(
            owner=quote(str(owner), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ErrorBody
    | GetOwnerUsageResponse401
    | GetOwnerUsageResponse403
    | GetOwnerUsageResponse503
    | UsageView
    | None
):
    if response.status_code == 200:
        response_200 = UsageView.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = GetOwnerUsageResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = GetOwnerUsageResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 503:
        response_503 = GetOwnerUsageResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ErrorBody
    | GetOwnerUsageResponse401
    | GetOwnerUsageResponse403
    | GetOwnerUsageResponse503
    | UsageView
]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    owner: str,
    *,
    client: AuthenticatedClient | Client,
    from_: datetime.date | Unset = UNSET,
    to: datetime.date | Unset = UNSET,
) -> Response[
    ErrorBody
    | GetOwnerUsageResponse401
    | GetOwnerUsageResponse403
    | GetOwnerUsageResponse503
    | UsageView
]:
    """What an owner's runs used each day (UTC): runs that ended, tokens and
    cost. Every inference is counted on the day it was made, so the days
    add up to the runs' own `usage`; a day's counts outlive its runs.

    Args:
        owner (str):
        from_ (datetime.date | Unset):
        to (datetime.date | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | GetOwnerUsageResponse401 | GetOwnerUsageResponse403 | GetOwnerUsageResponse503 | UsageView]
    """

    kwargs = _get_kwargs(
        owner=owner,
        from_=from_,
        to=to,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    owner: str,
    *,
    client: AuthenticatedClient | Client,
    from_: datetime.date | Unset = UNSET,
    to: datetime.date | Unset = UNSET,
) -> (
    ErrorBody
    | GetOwnerUsageResponse401
    | GetOwnerUsageResponse403
    | GetOwnerUsageResponse503
    | UsageView
    | None
):
    """What an owner's runs used each day (UTC): runs that ended, tokens and
    cost. Every inference is counted on the day it was made, so the days
    add up to the runs' own `usage`; a day's counts outlive its runs.

    Args:
        owner (str):
        from_ (datetime.date | Unset):
        to (datetime.date | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | GetOwnerUsageResponse401 | GetOwnerUsageResponse403 | GetOwnerUsageResponse503 | UsageView
    """

    return sync_detailed(
        owner=owner,
        client=client,
        from_=from_,
        to=to,
    ).parsed


async def asyncio_detailed(
    owner: str,
    *,
    client: AuthenticatedClient | Client,
    from_: datetime.date | Unset = UNSET,
    to: datetime.date | Unset = UNSET,
) -> Response[
    ErrorBody
    | GetOwnerUsageResponse401
    | GetOwnerUsageResponse403
    | GetOwnerUsageResponse503
    | UsageView
]:
    """What an owner's runs used each day (UTC): runs that ended, tokens and
    cost. Every inference is counted on the day it was made, so the days
    add up to the runs' own `usage`; a day's counts outlive its runs.

    Args:
        owner (str):
        from_ (datetime.date | Unset):
        to (datetime.date | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | GetOwnerUsageResponse401 | GetOwnerUsageResponse403 | GetOwnerUsageResponse503 | UsageView]
    """

    kwargs = _get_kwargs(
        owner=owner,
        from_=from_,
        to=to,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    owner: str,
    *,
    client: AuthenticatedClient | Client,
    from_: datetime.date | Unset = UNSET,
    to: datetime.date | Unset = UNSET,
) -> (
    ErrorBody
    | GetOwnerUsageResponse401
    | GetOwnerUsageResponse403
    | GetOwnerUsageResponse503
    | UsageView
    | None
):
    """What an owner's runs used each day (UTC): runs that ended, tokens and
    cost. Every inference is counted on the day it was made, so the days
    add up to the runs' own `usage`; a day's counts outlive its runs.

    Args:
        owner (str):
        from_ (datetime.date | Unset):
        to (datetime.date | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | GetOwnerUsageResponse401 | GetOwnerUsageResponse403 | GetOwnerUsageResponse503 | UsageView
    """

    return (
        await asyncio_detailed(
            owner=owner,
            client=client,
            from_=from_,
            to=to,
        )
    ).parsed
