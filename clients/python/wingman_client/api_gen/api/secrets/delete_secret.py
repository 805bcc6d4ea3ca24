from __future__ import annotations

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.delete_secret_response_401 import DeleteSecretResponse401
from ...models.delete_secret_response_403 import DeleteSecretResponse403
from ...models.delete_secret_response_503 import DeleteSecretResponse503
from ...models.deleted import Deleted
from ...models.error_body import ErrorBody
from ...types import Response


def _get_kwargs(
    name: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/secrets/{name}".format(
            name=quote(str(name), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    DeleteSecretResponse401
    | DeleteSecretResponse403
    | DeleteSecretResponse503
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
        response_401 = DeleteSecretResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = DeleteSecretResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 503:
        response_503 = DeleteSecretResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    DeleteSecretResponse401
    | DeleteSecretResponse403
    | DeleteSecretResponse503
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
    name: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[
    DeleteSecretResponse401
    | DeleteSecretResponse403
    | DeleteSecretResponse503
    | Deleted
    | ErrorBody
]:
    """Deletes a stored secret.

    Args:
        name (str): 1 to 128 characters of A-Z, a-z, 0-9, `_`, `.`, `-`

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeleteSecretResponse401 | DeleteSecretResponse403 | DeleteSecretResponse503 | Deleted | ErrorBody]
    """

    kwargs = _get_kwargs(
        name=name,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    name: str,
    *,
    client: AuthenticatedClient | Client,
) -> (
    DeleteSecretResponse401
    | DeleteSecretResponse403
    | DeleteSecretResponse503
    | Deleted
    | ErrorBody
    | None
):
    """Deletes a stored secret.

    Args:
        name (str): 1 to 128 characters of A-Z, a-z, 0-9, `_`, `.`, `-`

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeleteSecretResponse401 | DeleteSecretResponse403 | DeleteSecretResponse503 | Deleted | ErrorBody
    """

    return sync_detailed(
        name=name,
        client=client,
    ).parsed


async def asyncio_detailed(
    name: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[
    DeleteSecretResponse401
    | DeleteSecretResponse403
    | DeleteSecretResponse503
    | Deleted
    | ErrorBody
]:
    """Deletes a stored secret.

    Args:
        name (str): 1 to 128 characters of A-Z, a-z, 0-9, `_`, `.`, `-`

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeleteSecretResponse401 | DeleteSecretResponse403 | DeleteSecretResponse503 | Deleted | ErrorBody]
    """

    kwargs = _get_kwargs(
        name=name,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    name: str,
    *,
    client: AuthenticatedClient | Client,
) -> (
    DeleteSecretResponse401
    | DeleteSecretResponse403
    | DeleteSecretResponse503
    | Deleted
    | ErrorBody
    | None
):
    """Deletes a stored secret.

    Args:
        name (str): 1 to 128 characters of A-Z, a-z, 0-9, `_`, `.`, `-`

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeleteSecretResponse401 | DeleteSecretResponse403 | DeleteSecretResponse503 | Deleted | ErrorBody
    """

    return (
        await asyncio_detailed(
            name=name,
            client=client,
        )
    ).parsed
