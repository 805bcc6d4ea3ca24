from __future__ import annotations

from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.create_session_response_401 import CreateSessionResponse401
from ...models.create_session_response_403 import CreateSessionResponse403
from ...models.create_session_response_413 import CreateSessionResponse413
from ...models.create_session_response_415 import CreateSessionResponse415
from ...models.create_session_response_503 import CreateSessionResponse503
from ...models.error_body import ErrorBody
from ...models.session_fields import SessionFields
from ...models.session_view import SessionView
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: SessionFields | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/sessions",
    }

    if not isinstance(body, Unset):
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    CreateSessionResponse401
    | CreateSessionResponse403
    | CreateSessionResponse413
    | CreateSessionResponse415
    | CreateSessionResponse503
    | ErrorBody
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
        response_401 = CreateSessionResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = CreateSessionResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = CreateSessionResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = CreateSessionResponse415.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = ErrorBody.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = CreateSessionResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    CreateSessionResponse401
    | CreateSessionResponse403
    | CreateSessionResponse413
    | CreateSessionResponse415
    | CreateSessionResponse503
    | ErrorBody
    | SessionView
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
    body: SessionFields | Unset = UNSET,
) -> Response[
    CreateSessionResponse401
    | CreateSessionResponse403
    | CreateSessionResponse413
    | CreateSessionResponse415
    | CreateSessionResponse503
    | ErrorBody
    | SessionView
]:
    """Creates a session (an empty body is fine).

    Args:
        body (SessionFields | Unset): The fields a client may set on a session. On `PUT`, absent
            fields keep their value.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreateSessionResponse401 | CreateSessionResponse403 | CreateSessionResponse413 | CreateSessionResponse415 | CreateSessionResponse503 | ErrorBody | SessionView]
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
    body: SessionFields | Unset = UNSET,
) -> (
    CreateSessionResponse401
    | CreateSessionResponse403
    | CreateSessionResponse413
    | CreateSessionResponse415
    | CreateSessionResponse503
    | ErrorBody
    | SessionView
    | None
):
    """Creates a session (an empty body is fine).

    Args:
        body (SessionFields | Unset): The fields a client may set on a session. On `PUT`, absent
            fields keep their value.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreateSessionResponse401 | CreateSessionResponse403 | CreateSessionResponse413 | CreateSessionResponse415 | CreateSessionResponse503 | ErrorBody | SessionView
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: SessionFields | Unset = UNSET,
) -> Response[
    CreateSessionResponse401
    | CreateSessionResponse403
    | CreateSessionResponse413
    | CreateSessionResponse415
    | CreateSessionResponse503
    | ErrorBody
    | SessionView
]:
    """Creates a session (an empty body is fine).

    Args:
        body (SessionFields | Unset): The fields a client may set on a session. On `PUT`, absent
            fields keep their value.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreateSessionResponse401 | CreateSessionResponse403 | CreateSessionResponse413 | CreateSessionResponse415 | CreateSessionResponse503 | ErrorBody | SessionView]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: SessionFields | Unset = UNSET,
) -> (
    CreateSessionResponse401
    | CreateSessionResponse403
    | CreateSessionResponse413
    | CreateSessionResponse415
    | CreateSessionResponse503
    | ErrorBody
    | SessionView
    | None
):
    """Creates a session (an empty body is fine).

    Args:
        body (SessionFields | Unset): The fields a client may set on a session. On `PUT`, absent
            fields keep their value.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreateSessionResponse401 | CreateSessionResponse403 | CreateSessionResponse413 | CreateSessionResponse415 | CreateSessionResponse503 | ErrorBody | SessionView
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
