from __future__ import annotations

from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.api_key_info import ApiKeyInfo
from ...models.list_keys_response_401 import ListKeysResponse401
from ...models.list_keys_response_403 import ListKeysResponse403
from ...models.list_keys_response_503 import ListKeysResponse503
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/keys",
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ListKeysResponse401
    | ListKeysResponse403
    | ListKeysResponse503
    | list[ApiKeyInfo]
    | None
):
    if response.status_code == 200:
        response_200 = []
        _response_200 = response.json()
        for response_200_item_data in _response_200:
            response_200_item = ApiKeyInfo.from_dict(response_200_item_data)

            response_200.append(response_200_item)

        return response_200

    if response.status_code == 401:
        response_401 = ListKeysResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ListKeysResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 503:
        response_503 = ListKeysResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ListKeysResponse401 | ListKeysResponse403 | ListKeysResponse503 | list[ApiKeyInfo]
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
    ListKeysResponse401 | ListKeysResponse403 | ListKeysResponse503 | list[ApiKeyInfo]
]:
    """Every key, the newest first, revoked and expired ones included: never a key itself.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ListKeysResponse401 | ListKeysResponse403 | ListKeysResponse503 | list[ApiKeyInfo]]
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
    ListKeysResponse401
    | ListKeysResponse403
    | ListKeysResponse503
    | list[ApiKeyInfo]
    | None
):
    """Every key, the newest first, revoked and expired ones included: never a key itself.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ListKeysResponse401 | ListKeysResponse403 | ListKeysResponse503 | list[ApiKeyInfo]
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
) -> Response[
    ListKeysResponse401 | ListKeysResponse403 | ListKeysResponse503 | list[ApiKeyInfo]
]:
    """Every key, the newest first, revoked and expired ones included: never a key itself.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ListKeysResponse401 | ListKeysResponse403 | ListKeysResponse503 | list[ApiKeyInfo]]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
) -> (
    ListKeysResponse401
    | ListKeysResponse403
    | ListKeysResponse503
    | list[ApiKeyInfo]
    | None
):
    """Every key, the newest first, revoked and expired ones included: never a key itself.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ListKeysResponse401 | ListKeysResponse403 | ListKeysResponse503 | list[ApiKeyInfo]
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
