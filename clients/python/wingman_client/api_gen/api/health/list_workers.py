from __future__ import annotations

from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.list_workers_response_401 import ListWorkersResponse401
from ...models.list_workers_response_403 import ListWorkersResponse403
from ...models.list_workers_response_503 import ListWorkersResponse503
from ...models.worker_list import WorkerList
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/workers",
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ListWorkersResponse401
    | ListWorkersResponse403
    | ListWorkersResponse503
    | WorkerList
    | None
):
    if response.status_code == 200:
        response_200 = WorkerList.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = ListWorkersResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ListWorkersResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 503:
        response_503 = ListWorkersResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ListWorkersResponse401
    | ListWorkersResponse403
    | ListWorkersResponse503
    | WorkerList
]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
) -> Response[
    ListWorkersResponse401
    | ListWorkersResponse403
    | ListWorkersResponse503
    | WorkerList
]:
    """Live workers first, then those whose lease lapsed, then those that
    stopped; a worker gone for an hour and holding nothing is forgotten.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ListWorkersResponse401 | ListWorkersResponse403 | ListWorkersResponse503 | WorkerList]
    """

    kwargs = _get_kwargs()

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
) -> (
    ListWorkersResponse401
    | ListWorkersResponse403
    | ListWorkersResponse503
    | WorkerList
    | None
):
    """Live workers first, then those whose lease lapsed, then those that
    stopped; a worker gone for an hour and holding nothing is forgotten.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ListWorkersResponse401 | ListWorkersResponse403 | ListWorkersResponse503 | WorkerList
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
) -> Response[
    ListWorkersResponse401
    | ListWorkersResponse403
    | ListWorkersResponse503
    | WorkerList
]:
    """Live workers first, then those whose lease lapsed, then those that
    stopped; a worker gone for an hour and holding nothing is forgotten.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ListWorkersResponse401 | ListWorkersResponse403 | ListWorkersResponse503 | WorkerList]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
) -> (
    ListWorkersResponse401
    | ListWorkersResponse403
    | ListWorkersResponse503
    | WorkerList
    | None
):
    """Live workers first, then those whose lease lapsed, then those that
    stopped; a worker gone for an hour and holding nothing is forgotten.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ListWorkersResponse401 | ListWorkersResponse403 | ListWorkersResponse503 | WorkerList
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
