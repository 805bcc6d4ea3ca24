from __future__ import annotations

from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.put_body import PutBody
from ...models.put_credentials_response_401 import PutCredentialsResponse401
from ...models.put_credentials_response_403 import PutCredentialsResponse403
from ...models.put_credentials_response_413 import PutCredentialsResponse413
from ...models.put_credentials_response_415 import PutCredentialsResponse415
from ...models.put_credentials_response_503 import PutCredentialsResponse503
from ...models.stored import Stored
from ...types import Response


def _get_kwargs(
    *,
    body: PutBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/provider/auth",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ErrorBody
    | PutCredentialsResponse401
    | PutCredentialsResponse403
    | PutCredentialsResponse413
    | PutCredentialsResponse415
    | PutCredentialsResponse503
    | Stored
    | None
):
    if response.status_code == 200:
        response_200 = Stored.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = PutCredentialsResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = PutCredentialsResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 413:
        response_413 = PutCredentialsResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = PutCredentialsResponse415.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = ErrorBody.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = PutCredentialsResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ErrorBody
    | PutCredentialsResponse401
    | PutCredentialsResponse403
    | PutCredentialsResponse413
    | PutCredentialsResponse415
    | PutCredentialsResponse503
    | Stored
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
    body: PutBody,
) -> Response[
    ErrorBody
    | PutCredentialsResponse401
    | PutCredentialsResponse403
    | PutCredentialsResponse413
    | PutCredentialsResponse415
    | PutCredentialsResponse503
    | Stored
]:
    """Stores every credential of the body in one transaction, or none: each
    name and key is checked before anything is written.

    Args:
        body (PutBody): The body of `PUT /provider/auth`: `{"providers": {"<name>": {"type":
            "api_key", "key": "…"}}}`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PutCredentialsResponse401 | PutCredentialsResponse403 | PutCredentialsResponse413 | PutCredentialsResponse415 | PutCredentialsResponse503 | Stored]
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
    body: PutBody,
) -> (
    ErrorBody
    | PutCredentialsResponse401
    | PutCredentialsResponse403
    | PutCredentialsResponse413
    | PutCredentialsResponse415
    | PutCredentialsResponse503
    | Stored
    | None
):
    """Stores every credential of the body in one transaction, or none: each
    name and key is checked before anything is written.

    Args:
        body (PutBody): The body of `PUT /provider/auth`: `{"providers": {"<name>": {"type":
            "api_key", "key": "…"}}}`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PutCredentialsResponse401 | PutCredentialsResponse403 | PutCredentialsResponse413 | PutCredentialsResponse415 | PutCredentialsResponse503 | Stored
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: PutBody,
) -> Response[
    ErrorBody
    | PutCredentialsResponse401
    | PutCredentialsResponse403
    | PutCredentialsResponse413
    | PutCredentialsResponse415
    | PutCredentialsResponse503
    | Stored
]:
    """Stores every credential of the body in one transaction, or none: each
    name and key is checked before anything is written.

    Args:
        body (PutBody): The body of `PUT /provider/auth`: `{"providers": {"<name>": {"type":
            "api_key", "key": "…"}}}`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PutCredentialsResponse401 | PutCredentialsResponse403 | PutCredentialsResponse413 | PutCredentialsResponse415 | PutCredentialsResponse503 | Stored]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: PutBody,
) -> (
    ErrorBody
    | PutCredentialsResponse401
    | PutCredentialsResponse403
    | PutCredentialsResponse413
    | PutCredentialsResponse415
    | PutCredentialsResponse503
    | Stored
    | None
):
    """Stores every credential of the body in one transaction, or none: each
    name and key is checked before anything is written.

    Args:
        body (PutBody): The body of `PUT /provider/auth`: `{"providers": {"<name>": {"type":
            "api_key", "key": "…"}}}`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PutCredentialsResponse401 | PutCredentialsResponse403 | PutCredentialsResponse413 | PutCredentialsResponse415 | PutCredentialsResponse503 | Stored
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
