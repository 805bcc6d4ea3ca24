from __future__ import annotations

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.fork_body import ForkBody
from ...models.fork_session_response_401 import ForkSessionResponse401
from ...models.fork_session_response_403 import ForkSessionResponse403
from ...models.fork_session_response_413 import ForkSessionResponse413
from ...models.fork_session_response_415 import ForkSessionResponse415
from ...models.fork_session_response_503 import ForkSessionResponse503
from ...models.session_view import SessionView
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    body: ForkBody | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/sessions/{id}/fork".format(
            id=quote(str(id), safe=""),
        ),
    }

    if not isinstance(body, Unset):
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ErrorBody
    | ForkSessionResponse401
    | ForkSessionResponse403
    | ForkSessionResponse413
    | ForkSessionResponse415
    | ForkSessionResponse503
    | SessionView
    | None
):
    if response.status_code == 201:
        response_201 = SessionView.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ForkSessionResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ForkSessionResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = ErrorBody.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = ForkSessionResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = ForkSessionResponse415.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = ErrorBody.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = ForkSessionResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ErrorBody
    | ForkSessionResponse401
    | ForkSessionResponse403
    | ForkSessionResponse413
    | ForkSessionResponse415
    | ForkSessionResponse503
    | SessionView
]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: ForkBody | Unset = UNSET,
) -> Response[
    ErrorBody
    | ForkSessionResponse401
    | ForkSessionResponse403
    | ForkSessionResponse413
    | ForkSessionResponse415
    | ForkSessionResponse503
    | SessionView
]:
    """Forks a session: a new session with the same agent, title, metadata and
    tools, whose history is the original's up to the end of run `at` (all
    of it by default). The two then go their own ways.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        body (ForkBody | Unset): Where a fork starts from.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | ForkSessionResponse401 | ForkSessionResponse403 | ForkSessionResponse413 | ForkSessionResponse415 | ForkSessionResponse503 | SessionView]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: ForkBody | Unset = UNSET,
) -> (
    ErrorBody
    | ForkSessionResponse401
    | ForkSessionResponse403
    | ForkSessionResponse413
    | ForkSessionResponse415
    | ForkSessionResponse503
    | SessionView
    | None
):
    """Forks a session: a new session with the same agent, title, metadata and
    tools, whose history is the original's up to the end of run `at` (all
    of it by default). The two then go their own ways.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        body (ForkBody | Unset): Where a fork starts from.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | ForkSessionResponse401 | ForkSessionResponse403 | ForkSessionResponse413 | ForkSessionResponse415 | ForkSessionResponse503 | SessionView
    """

    return sync_detailed(
        id=id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: ForkBody | Unset = UNSET,
) -> Response[
    ErrorBody
    | ForkSessionResponse401
    | ForkSessionResponse403
    | ForkSessionResponse413
    | ForkSessionResponse415
    | ForkSessionResponse503
    | SessionView
]:
    """Forks a session: a new session with the same agent, title, metadata and
    tools, whose history is the original's up to the end of run `at` (all
    of it by default). The two then go their own ways.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        body (ForkBody | Unset): Where a fork starts from.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | ForkSessionResponse401 | ForkSessionResponse403 | ForkSessionResponse413 | ForkSessionResponse415 | ForkSessionResponse503 | SessionView]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: ForkBody | Unset = UNSET,
) -> (
    ErrorBody
    | ForkSessionResponse401
    | ForkSessionResponse403
    | ForkSessionResponse413
    | ForkSessionResponse415
    | ForkSessionResponse503
    | SessionView
    | None
):
    """Forks a session: a new session with the same agent, title, metadata and
    tools, whose history is the original's up to the end of run `at` (all
    of it by default). The two then go their own ways.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        body (ForkBody | Unset): Where a fork starts from.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | ForkSessionResponse401 | ForkSessionResponse403 | ForkSessionResponse413 | ForkSessionResponse415 | ForkSessionResponse503 | SessionView
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
        )
    ).parsed
