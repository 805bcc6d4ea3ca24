from __future__ import annotations

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.list_schedule_runs_response_401 import ListScheduleRunsResponse401
from ...models.list_schedule_runs_response_403 import ListScheduleRunsResponse403
from ...models.list_schedule_runs_response_503 import ListScheduleRunsResponse503
from ...models.ticks import Ticks
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    limit: int | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["limit"] = limit

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/schedules/{id}/runs".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ErrorBody
    | ListScheduleRunsResponse401
    | ListScheduleRunsResponse403
    | ListScheduleRunsResponse503
    | Ticks
    | None
):
    if response.status_code == 200:
        response_200 = Ticks.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ListScheduleRunsResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ListScheduleRunsResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 503:
        response_503 = ListScheduleRunsResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ErrorBody
    | ListScheduleRunsResponse401
    | ListScheduleRunsResponse403
    | ListScheduleRunsResponse503
    | Ticks
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
    limit: int | Unset = UNSET,
) -> Response[
    ErrorBody
    | ListScheduleRunsResponse401
    | ListScheduleRunsResponse403
    | ListScheduleRunsResponse503
    | Ticks
]:
    """What a schedule's ticks submitted, newest first.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | ListScheduleRunsResponse401 | ListScheduleRunsResponse403 | ListScheduleRunsResponse503 | Ticks]
    """

    kwargs = _get_kwargs(
        id=id,
        limit=limit,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = UNSET,
) -> (
    ErrorBody
    | ListScheduleRunsResponse401
    | ListScheduleRunsResponse403
    | ListScheduleRunsResponse503
    | Ticks
    | None
):
    """What a schedule's ticks submitted, newest first.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | ListScheduleRunsResponse401 | ListScheduleRunsResponse403 | ListScheduleRunsResponse503 | Ticks
    """

    return sync_detailed(
        id=id,
        client=client,
        limit=limit,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = UNSET,
) -> Response[
    ErrorBody
    | ListScheduleRunsResponse401
    | ListScheduleRunsResponse403
    | ListScheduleRunsResponse503
    | Ticks
]:
    """What a schedule's ticks submitted, newest first.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | ListScheduleRunsResponse401 | ListScheduleRunsResponse403 | ListScheduleRunsResponse503 | Ticks]
    """

    kwargs = _get_kwargs(
        id=id,
        limit=limit,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = UNSET,
) -> (
    ErrorBody
    | ListScheduleRunsResponse401
    | ListScheduleRunsResponse403
    | ListScheduleRunsResponse503
    | Ticks
    | None
):
    """What a schedule's ticks submitted, newest first.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | ListScheduleRunsResponse401 | ListScheduleRunsResponse403 | ListScheduleRunsResponse503 | Ticks
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            limit=limit,
        )
    ).parsed
