from __future__ import annotations

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.delete_credential_response_401 import DeleteCredentialResponse401
from ...models.delete_credential_response_403 import DeleteCredentialResponse403
from ...models.delete_credential_response_503 import DeleteCredentialResponse503
from ...models.deleted import Deleted
from ...models.error_body import ErrorBody
from ...types import Response


def _get_kwargs(
    provider: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/provider/auth/{provider}".format(
            provider=quote(str(provider), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    DeleteCredentialResponse401
    | DeleteCredentialResponse403
    | DeleteCredentialResponse503
    | Deleted
    | ErrorBody
    | None
):
    if response.status_code == 200:
        response_200 = Deleted.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = DeleteCredentialResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = DeleteCredentialResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 503:
        response_503 = DeleteCredentialResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    DeleteCredentialResponse401
    | DeleteCredentialResponse403
    | DeleteCredentialResponse503
    | Deleted
    | ErrorBody
]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    provider: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[
    DeleteCredentialResponse401
    | DeleteCredentialResponse403
    | DeleteCredentialResponse503
    | Deleted
    | ErrorBody
]:
    """Deletes a stored credential.

    Args:
        provider (str): A provider that takes keys, alone or with a label: `openai` or
            `openai:work`

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeleteCredentialResponse401 | DeleteCredentialResponse403 | DeleteCredentialResponse503 | Deleted | ErrorBody]
    """

    kwargs = _get_kwargs(
        provider=provider,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    provider: str,
    *,
    client: AuthenticatedClient | Client,
) -> (
    DeleteCredentialResponse401
    | DeleteCredentialResponse403
    | DeleteCredentialResponse503
    | Deleted
    | ErrorBody
    | None
):
    """Deletes a stored credential.

    Args:
        provider (str): A provider that takes keys, alone or with a label: `openai` or
            `openai:work`

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeleteCredentialResponse401 | DeleteCredentialResponse403 | DeleteCredentialResponse503 | Deleted | ErrorBody
    """

    return sync_detailed(
        provider=provider,
        client=client,
    ).parsed


async def asyncio_detailed(
    provider: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[
    DeleteCredentialResponse401
    | DeleteCredentialResponse403
    | DeleteCredentialResponse503
    | Deleted
    | ErrorBody
]:
    """Deletes a stored credential.

    Args:
        provider (str): A provider that takes keys, alone or with a label: `openai` or
            `openai:work`

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeleteCredentialResponse401 | DeleteCredentialResponse403 | DeleteCredentialResponse503 | Deleted | ErrorBody]
    """

    kwargs = _get_kwargs(
        provider=provider,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    provider: str,
    *,
    client: AuthenticatedClient | Client,
) -> (
    DeleteCredentialResponse401
    | DeleteCredentialResponse403
    | DeleteCredentialResponse503
    | Deleted
    | ErrorBody
    | None
):
    """Deletes a stored credential.

    Args:
        provider (str): A provider that takes keys, alone or with a label: `openai` or
            `openai:work`

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeleteCredentialResponse401 | DeleteCredentialResponse403 | DeleteCredentialResponse503 | Deleted | ErrorBody
    """

    return (
        await asyncio_detailed(
            provider=provider,
            client=client,
        )
    ).parsed
