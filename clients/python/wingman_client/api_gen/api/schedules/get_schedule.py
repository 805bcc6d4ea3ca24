from __future__ import annotations

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.get_schedule_response_400 import GetScheduleResponse400
from ...models.get_schedule_response_401 import GetScheduleResponse401
from ...models.get_schedule_response_403 import GetScheduleResponse403
from ...models.get_schedule_response_503 import GetScheduleResponse503
from ...models.schedule import Schedule
from ...types import Response


def _get_kwargs(
    id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/schedules/{id}".format(
            id=quote(str(id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ErrorBody
    | GetScheduleResponse400
    | GetScheduleResponse401
    | GetScheduleResponse403
    | GetScheduleResponse503
    | Schedule
    | None
):
    if response.status_code == 200:
        response_200 = Schedule.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = GetScheduleResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = GetScheduleResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = GetScheduleResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 503:
        response_503 = GetScheduleResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ErrorBody
    | GetScheduleResponse400
    | GetScheduleResponse401
    | GetScheduleResponse403
    | GetScheduleResponse503
    | Schedule
]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[
    ErrorBody
    | GetScheduleResponse400
    | GetScheduleResponse401
    | GetScheduleResponse403
    | GetScheduleResponse503
    | Schedule
]:
    """One schedule.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | GetScheduleResponse400 | GetScheduleResponse401 | GetScheduleResponse403 | GetScheduleResponse503 | Schedule]
    """

    kwargs = _get_kwargs(
        id=id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient | Client,
) -> (
    ErrorBody
    | GetScheduleResponse400
    | GetScheduleResponse401
    | GetScheduleResponse403
    | GetScheduleResponse503
    | Schedule
    | None
):
    """One schedule.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | GetScheduleResponse400 | GetScheduleResponse401 | GetScheduleResponse403 | GetScheduleResponse503 | Schedule
    """

    return sync_detailed(
        id=id,
        client=client,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[
    ErrorBody
    | GetScheduleResponse400
    | GetScheduleResponse401
    | GetScheduleResponse403
    | GetScheduleResponse503
    | Schedule
]:
    """One schedule.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | GetScheduleResponse400 | GetScheduleResponse401 | GetScheduleResponse403 | GetScheduleResponse503 | Schedule]
    """

    kwargs = _get_kwargs(
        id=id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient | Client,
) -> (
    ErrorBody
    | GetScheduleResponse400
    | GetScheduleResponse401
    | GetScheduleResponse403
    | GetScheduleResponse503
    | Schedule
    | None
):
    """One schedule.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | GetScheduleResponse400 | GetScheduleResponse401 | GetScheduleResponse403 | GetScheduleResponse503 | Schedule
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
        )
    ).parsed
