from __future__ import annotations

from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.list_secrets_response_401 import ListSecretsResponse401
from ...models.list_secrets_response_403 import ListSecretsResponse403
from ...models.list_secrets_response_503 import ListSecretsResponse503
from ...models.secret_info import SecretInfo
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/secrets",
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ListSecretsResponse401
    | ListSecretsResponse403
    | ListSecretsResponse503
    | list[SecretInfo]
    | None
):
    if response.status_code == 200:
        response_200 = []
        _response_200 = response.json()
        for response_200_item_data in _response_200:
            response_200_item = SecretInfo.from_dict(response_200_item_data)

            response_200.append(response_200_item)

        return response_200

    if response.status_code == 401:
        response_401 = ListSecretsResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ListSecretsResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 503:
        response_503 = ListSecretsResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ListSecretsResponse401
    | ListSecretsResponse403
    | ListSecretsResponse503
    | list[SecretInfo]
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
    ListSecretsResponse401
    | ListSecretsResponse403
    | ListSecretsResponse503
    | list[SecretInfo]
]:
    """Every stored secret, by name: never a value.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ListSecretsResponse401 | ListSecretsResponse403 | ListSecretsResponse503 | list[SecretInfo]]
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
    ListSecretsResponse401
    | ListSecretsResponse403
    | ListSecretsResponse503
    | list[SecretInfo]
    | None
):
    """Every stored secret, by name: never a value.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ListSecretsResponse401 | ListSecretsResponse403 | ListSecretsResponse503 | list[SecretInfo]
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
) -> Response[
    ListSecretsResponse401
    | ListSecretsResponse403
    | ListSecretsResponse503
    | list[SecretInfo]
]:
    """Every stored secret, by name: never a value.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ListSecretsResponse401 | ListSecretsResponse403 | ListSecretsResponse503 | list[SecretInfo]]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
) -> (
    ListSecretsResponse401
    | ListSecretsResponse403
    | ListSecretsResponse503
    | list[SecretInfo]
    | None
):
    """Every stored secret, by name: never a value.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ListSecretsResponse401 | ListSecretsResponse403 | ListSecretsResponse503 | list[SecretInfo]
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
