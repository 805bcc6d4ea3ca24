from __future__ import annotations

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.fleet_run_view import FleetRunView
from ...models.get_fleet_run_response_401 import GetFleetRunResponse401
from ...models.get_fleet_run_response_403 import GetFleetRunResponse403
from ...models.get_fleet_run_response_503 import GetFleetRunResponse503
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    after: int | Unset = UNSET,
    limit: int | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["after"] = after

    params["limit"] = limit

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/fleet-runs/{id}".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ErrorBody
    | FleetRunView
    | GetFleetRunResponse401
    | GetFleetRunResponse403
    | GetFleetRunResponse503
    | None
):
    if response.status_code == 200:
        response_200 = FleetRunView.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = GetFleetRunResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = GetFleetRunResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 503:
        response_503 = GetFleetRunResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ErrorBody
    | FleetRunView
    | GetFleetRunResponse401
    | GetFleetRunResponse403
    | GetFleetRunResponse503
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
    after: int | Unset = UNSET,
    limit: int | Unset = UNSET,
) -> Response[
    ErrorBody
    | FleetRunView
    | GetFleetRunResponse401
    | GetFleetRunResponse403
    | GetFleetRunResponse503
]:
    """The fleet run, its progress (one row, however many tasks) and a page of
    its tasks with their results.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        after (int | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | FleetRunView | GetFleetRunResponse401 | GetFleetRunResponse403 | GetFleetRunResponse503]
    """

    kwargs = _get_kwargs(
        id=id,
        after=after,
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
    after: int | Unset = UNSET,
    limit: int | Unset = UNSET,
) -> (
    ErrorBody
    | FleetRunView
    | GetFleetRunResponse401
    | GetFleetRunResponse403
    | GetFleetRunResponse503
    | None
):
    """The fleet run, its progress (one row, however many tasks) and a page of
    its tasks with their results.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        after (int | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | FleetRunView | GetFleetRunResponse401 | GetFleetRunResponse403 | GetFleetRunResponse503
    """

    return sync_detailed(
        id=id,
        client=client,
        after=after,
        limit=limit,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    after: int | Unset = UNSET,
    limit: int | Unset = UNSET,
) -> Response[
    ErrorBody
    | FleetRunView
    | GetFleetRunResponse401
    | GetFleetRunResponse403
    | GetFleetRunResponse503
]:
    """The fleet run, its progress (one row, however many tasks) and a page of
    its tasks with their results.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        after (int | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | FleetRunView | GetFleetRunResponse401 | GetFleetRunResponse403 | GetFleetRunResponse503]
    """

    kwargs = _get_kwargs(
        id=id,
        after=after,
        limit=limit,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    after: int | Unset = UNSET,
    limit: int | Unset = UNSET,
) -> (
    ErrorBody
    | FleetRunView
    | GetFleetRunResponse401
    | GetFleetRunResponse403
    | GetFleetRunResponse503
    | None
):
    """The fleet run, its progress (one row, however many tasks) and a page of
    its tasks with their results.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        after (int | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | FleetRunView | GetFleetRunResponse401 | GetFleetRunResponse403 | GetFleetRunResponse503
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            after=after,
            limit=limit,
        )
    ).parsed
