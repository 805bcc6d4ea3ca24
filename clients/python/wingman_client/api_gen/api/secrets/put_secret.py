from __future__ import annotations

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.put_secret_response_401 import PutSecretResponse401
from ...models.put_secret_response_403 import PutSecretResponse403
from ...models.put_secret_response_413 import PutSecretResponse413
from ...models.put_secret_response_415 import PutSecretResponse415
from ...models.put_secret_response_503 import PutSecretResponse503
from ...models.secret_body import SecretBody
from ...models.secret_info import SecretInfo
from ...types import Response


def _get_kwargs(
    name: str,
    *,
    body: SecretBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/secrets/{name}".format(
            name=quote(str(name), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ErrorBody
    | PutSecretResponse401
    | PutSecretResponse403
    | PutSecretResponse413
    | PutSecretResponse415
    | PutSecretResponse503
    | SecretInfo
    | None
):
    if response.status_code == 200:
        response_200 = SecretInfo.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = PutSecretResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = PutSecretResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 413:
        response_413 = PutSecretResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = PutSecretResponse415.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = ErrorBody.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = PutSecretResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ErrorBody
    | PutSecretResponse401
    | PutSecretResponse403
    | PutSecretResponse413
    | PutSecretResponse415
    | PutSecretResponse503
    | SecretInfo
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
    body: SecretBody,
) -> Response[
    ErrorBody
    | PutSecretResponse401
    | PutSecretResponse403
    | PutSecretResponse413
    | PutSecretResponse415
    | PutSecretResponse503
    | SecretInfo
]:
    """Stores a secret, or replaces its value. The name and the value are both
    checked before anything is written; the answer has no value in it.

    Args:
        name (str): 1 to 128 characters of A-Z, a-z, 0-9, `_`, `.`, `-`
        body (SecretBody): The body of `PUT /secrets/{name}`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PutSecretResponse401 | PutSecretResponse403 | PutSecretResponse413 | PutSecretResponse415 | PutSecretResponse503 | SecretInfo]
    """

    kwargs = _get_kwargs(
        name=name,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    name: str,
    *,
    client: AuthenticatedClient | Client,
    body: SecretBody,
) -> (
    ErrorBody
    | PutSecretResponse401
    | PutSecretResponse403
    | PutSecretResponse413
    | PutSecretResponse415
    | PutSecretResponse503
    | SecretInfo
    | None
):
    """Stores a secret, or replaces its value. The name and the value are both
    checked before anything is written; the answer has no value in it.

    Args:
        name (str): 1 to 128 characters of A-Z, a-z, 0-9, `_`, `.`, `-`
        body (SecretBody): The body of `PUT /secrets/{name}`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PutSecretResponse401 | PutSecretResponse403 | PutSecretResponse413 | PutSecretResponse415 | PutSecretResponse503 | SecretInfo
    """

    return sync_detailed(
        name=name,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    name: str,
    *,
    client: AuthenticatedClient | Client,
    body: SecretBody,
) -> Response[
    ErrorBody
    | PutSecretResponse401
    | PutSecretResponse403
    | PutSecretResponse413
    | PutSecretResponse415
    | PutSecretResponse503
    | SecretInfo
]:
    """Stores a secret, or replaces its value. The name and the value are both
    checked before anything is written; the answer has no value in it.

    Args:
        name (str): 1 to 128 characters of A-Z, a-z, 0-9, `_`, `.`, `-`
        body (SecretBody): The body of `PUT /secrets/{name}`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PutSecretResponse401 | PutSecretResponse403 | PutSecretResponse413 | PutSecretResponse415 | PutSecretResponse503 | SecretInfo]
    """

    kwargs = _get_kwargs(
        name=name,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    name: str,
    *,
    client: AuthenticatedClient | Client,
    body: SecretBody,
) -> (
    ErrorBody
    | PutSecretResponse401
    | PutSecretResponse403
    | PutSecretResponse413
    | PutSecretResponse415
    | PutSecretResponse503
    | SecretInfo
    | None
):
    """Stores a secret, or replaces its value. The name and the value are both
    checked before anything is written; the answer has no value in it.

    Args:
        name (str): 1 to 128 characters of A-Z, a-z, 0-9, `_`, `.`, `-`
        body (SecretBody): The body of `PUT /secrets/{name}`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PutSecretResponse401 | PutSecretResponse403 | PutSecretResponse413 | PutSecretResponse415 | PutSecretResponse503 | SecretInfo
    """

    return (
        await asyncio_detailed(
            name=name,
            client=client,
            body=body,
        )
    ).parsed
