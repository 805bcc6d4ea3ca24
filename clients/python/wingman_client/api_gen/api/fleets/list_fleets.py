from __future__ import annotations

from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.fleet import Fleet
from ...models.list_fleets_response_401 import ListFleetsResponse401
from ...models.list_fleets_response_403 import ListFleetsResponse403
from ...models.list_fleets_response_503 import ListFleetsResponse503
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/fleets",
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ListFleetsResponse401
    | ListFleetsResponse403
    | ListFleetsResponse503
    | list[Fleet]
    | None
):
    if response.status_code == 200:
        response_200 = []
        _response_200 = response.json()
        for response_200_item_data in _response_200:
            response_200_item = Fleet.from_dict(response_200_item_data)

            response_200.append(response_200_item)

        return response_200

    if response.status_code == 401:
        response_401 = ListFleetsResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ListFleetsResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 503:
        response_503 = ListFleetsResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ListFleetsResponse401 | ListFleetsResponse403 | ListFleetsResponse503 | list[Fleet]
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
    ListFleetsResponse401 | ListFleetsResponse403 | ListFleetsResponse503 | list[Fleet]
]:
    """Every fleet: a plain array.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ListFleetsResponse401 | ListFleetsResponse403 | ListFleetsResponse503 | list[Fleet]]
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
    ListFleetsResponse401
    | ListFleetsResponse403
    | ListFleetsResponse503
    | list[Fleet]
    | None
):
    """Every fleet: a plain array.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ListFleetsResponse401 | ListFleetsResponse403 | ListFleetsResponse503 | list[Fleet]
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
) -> Response[
    ListFleetsResponse401 | ListFleetsResponse403 | ListFleetsResponse503 | list[Fleet]
]:
    """Every fleet: a plain array.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ListFleetsResponse401 | ListFleetsResponse403 | ListFleetsResponse503 | list[Fleet]]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
) -> (
    ListFleetsResponse401
    | ListFleetsResponse403
    | ListFleetsResponse503
    | list[Fleet]
    | None
):
    """Every fleet: a plain array.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ListFleetsResponse401 | ListFleetsResponse403 | ListFleetsResponse503 | list[Fleet]
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
