from __future__ import annotations

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.pause_schedule_response_401 import PauseScheduleResponse401
from ...models.pause_schedule_response_403 import PauseScheduleResponse403
from ...models.pause_schedule_response_503 import PauseScheduleResponse503
from ...models.schedule import Schedule
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    if_match: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_match, Unset):
        headers["If-Match"] = if_match

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/schedules/{id}/pause".format(
            id=quote(str(id), safe=""),
        ),
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ErrorBody
    | PauseScheduleResponse401
    | PauseScheduleResponse403
    | PauseScheduleResponse503
    | Schedule
    | None
):
    if response.status_code == 200:
        response_200 = Schedule.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = PauseScheduleResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = PauseScheduleResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = ErrorBody.from_dict(response.json())

        return response_409

    if response.status_code == 503:
        response_503 = PauseScheduleResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ErrorBody
    | PauseScheduleResponse401
    | PauseScheduleResponse403
    | PauseScheduleResponse503
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
    if_match: str | Unset = UNSET,
) -> Response[
    ErrorBody
    | PauseScheduleResponse401
    | PauseScheduleResponse403
    | PauseScheduleResponse503
    | Schedule
]:
    """Pauses a schedule: no tick falls until it is resumed.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        if_match (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PauseScheduleResponse401 | PauseScheduleResponse403 | PauseScheduleResponse503 | Schedule]
    """

    kwargs = _get_kwargs(
        id=id,
        if_match=if_match,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    if_match: str | Unset = UNSET,
) -> (
    ErrorBody
    | PauseScheduleResponse401
    | PauseScheduleResponse403
    | PauseScheduleResponse503
    | Schedule
    | None
):
    """Pauses a schedule: no tick falls until it is resumed.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        if_match (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PauseScheduleResponse401 | PauseScheduleResponse403 | PauseScheduleResponse503 | Schedule
    """

    return sync_detailed(
        id=id,
        client=client,
        if_match=if_match,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    if_match: str | Unset = UNSET,
) -> Response[
    ErrorBody
    | PauseScheduleResponse401
    | PauseScheduleResponse403
    | PauseScheduleResponse503
    | Schedule
]:
    """Pauses a schedule: no tick falls until it is resumed.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        if_match (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PauseScheduleResponse401 | PauseScheduleResponse403 | PauseScheduleResponse503 | Schedule]
    """

    kwargs = _get_kwargs(
        id=id,
        if_match=if_match,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    if_match: str | Unset = UNSET,
) -> (
    ErrorBody
    | PauseScheduleResponse401
    | PauseScheduleResponse403
    | PauseScheduleResponse503
    | Schedule
    | None
):
    """Pauses a schedule: no tick falls until it is resumed.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        if_match (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PauseScheduleResponse401 | PauseScheduleResponse403 | PauseScheduleResponse503 | Schedule
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            if_match=if_match,
        )
    ).parsed
