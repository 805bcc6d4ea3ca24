from __future__ import annotations

from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.create_key_response_401 import CreateKeyResponse401
from ...models.create_key_response_403 import CreateKeyResponse403
from ...models.create_key_response_413 import CreateKeyResponse413
from ...models.create_key_response_415 import CreateKeyResponse415
from ...models.create_key_response_503 import CreateKeyResponse503
from ...models.created_key import CreatedKey
from ...models.error_body import ErrorBody
from ...models.new_key import NewKey
from ...types import Response


def _get_kwargs(
    *,
    body: NewKey,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/keys",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    CreateKeyResponse401
    | CreateKeyResponse403
    | CreateKeyResponse413
    | CreateKeyResponse415
    | CreateKeyResponse503
    | CreatedKey
    | ErrorBody
    | None
):
    if response.status_code == 201:
        response_201 = CreatedKey.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = CreateKeyResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = CreateKeyResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 409:
        response_409 = ErrorBody.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = CreateKeyResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = CreateKeyResponse415.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = ErrorBody.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = CreateKeyResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    CreateKeyResponse401
    | CreateKeyResponse403
    | CreateKeyResponse413
    | CreateKeyResponse415
    | CreateKeyResponse503
    | CreatedKey
    | ErrorBody
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
    body: NewKey,
) -> Response[
    CreateKeyResponse401
    | CreateKeyResponse403
    | CreateKeyResponse413
    | CreateKeyResponse415
    | CreateKeyResponse503
    | CreatedKey
    | ErrorBody
]:
    """Makes a key for an owner, with a role. On a server without
    `--auth-token`, the first live key must be an admin's: a member's or a
    reader's alone would shut everyone out of keys.

    Args:
        body (NewKey): The body of `POST /keys`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreateKeyResponse401 | CreateKeyResponse403 | CreateKeyResponse413 | CreateKeyResponse415 | CreateKeyResponse503 | CreatedKey | ErrorBody]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: NewKey,
) -> (
    CreateKeyResponse401
    | CreateKeyResponse403
    | CreateKeyResponse413
    | CreateKeyResponse415
    | CreateKeyResponse503
    | CreatedKey
    | ErrorBody
    | None
):
    """Makes a key for an owner, with a role. On a server without
    `--auth-token`, the first live key must be an admin's: a member's or a
    reader's alone would shut everyone out of keys.

    Args:
        body (NewKey): The body of `POST /keys`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreateKeyResponse401 | CreateKeyResponse403 | CreateKeyResponse413 | CreateKeyResponse415 | CreateKeyResponse503 | CreatedKey | ErrorBody
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: NewKey,
) -> Response[
    CreateKeyResponse401
    | CreateKeyResponse403
    | CreateKeyResponse413
    | CreateKeyResponse415
    | CreateKeyResponse503
    | CreatedKey
    | ErrorBody
]:
    """Makes a key for an owner, with a role. On a server without
    `--auth-token`, the first live key must be an admin's: a member's or a
    reader's alone would shut everyone out of keys.

    Args:
        body (NewKey): The body of `POST /keys`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreateKeyResponse401 | CreateKeyResponse403 | CreateKeyResponse413 | CreateKeyResponse415 | CreateKeyResponse503 | CreatedKey | ErrorBody]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: NewKey,
) -> (
    CreateKeyResponse401
    | CreateKeyResponse403
    | CreateKeyResponse413
    | CreateKeyResponse415
    | CreateKeyResponse503
    | CreatedKey
    | ErrorBody
    | None
):
    """Makes a key for an owner, with a role. On a server without
    `--auth-token`, the first live key must be an admin's: a member's or a
    reader's alone would shut everyone out of keys.

    Args:
        body (NewKey): The body of `POST /keys`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreateKeyResponse401 | CreateKeyResponse403 | CreateKeyResponse413 | CreateKeyResponse415 | CreateKeyResponse503 | CreatedKey | ErrorBody
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
