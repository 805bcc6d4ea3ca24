from __future__ import annotations

from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.credential_list import CredentialList
from ...models.list_credentials_response_401 import ListCredentialsResponse401
from ...models.list_credentials_response_403 import ListCredentialsResponse403
from ...models.list_credentials_response_503 import ListCredentialsResponse503
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/provider/auth",
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    CredentialList
    | ListCredentialsResponse401
    | ListCredentialsResponse403
    | ListCredentialsResponse503
    | None
):
    if response.status_code == 200:
        response_200 = CredentialList.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = ListCredentialsResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ListCredentialsResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 503:
        response_503 = ListCredentialsResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    CredentialList
    | ListCredentialsResponse401
    | ListCredentialsResponse403
    | ListCredentialsResponse503
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
    CredentialList
    | ListCredentialsResponse401
    | ListCredentialsResponse403
    | ListCredentialsResponse503
]:
    """Every stored credential, by name: never the key.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CredentialList | ListCredentialsResponse401 | ListCredentialsResponse403 | ListCredentialsResponse503]
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
    CredentialList
    | ListCredentialsResponse401
    | ListCredentialsResponse403
    | ListCredentialsResponse503
    | None
):
    """Every stored credential, by name: never the key.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CredentialList | ListCredentialsResponse401 | ListCredentialsResponse403 | ListCredentialsResponse503
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
) -> Response[
    CredentialList
    | ListCredentialsResponse401
    | ListCredentialsResponse403
    | ListCredentialsResponse503
]:
    """Every stored credential, by name: never the key.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CredentialList | ListCredentialsResponse401 | ListCredentialsResponse403 | ListCredentialsResponse503]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
) -> (
    CredentialList
    | ListCredentialsResponse401
    | ListCredentialsResponse403
    | ListCredentialsResponse503
    | None
):
    """Every stored credential, by name: never the key.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CredentialList | ListCredentialsResponse401 | ListCredentialsResponse403 | ListCredentialsResponse503
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
