from __future__ import annotations

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.session_fields import SessionFields
from ...models.session_view import SessionView
from ...models.update_session_response_401 import UpdateSessionResponse401
from ...models.update_session_response_403 import UpdateSessionResponse403
from ...models.update_session_response_413 import UpdateSessionResponse413
from ...models.update_session_response_415 import UpdateSessionResponse415
from ...models.update_session_response_503 import UpdateSessionResponse503
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    body: SessionFields | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/sessions/{id}".format(
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
    | SessionView
    | UpdateSessionResponse401
    | UpdateSessionResponse403
    | UpdateSessionResponse413
    | UpdateSessionResponse415
    | UpdateSessionResponse503
    | None
):
    if response.status_code == 200:
        response_200 = SessionView.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = UpdateSessionResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = UpdateSessionResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = UpdateSessionResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = UpdateSessionResponse415.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = ErrorBody.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = UpdateSessionResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ErrorBody
    | SessionView
    | UpdateSessionResponse401
    | UpdateSessionResponse403
    | UpdateSessionResponse413
    | UpdateSessionResponse415
    | UpdateSessionResponse503
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
    body: SessionFields | Unset = UNSET,
) -> Response[
    ErrorBody
    | SessionView
    | UpdateSessionResponse401
    | UpdateSessionResponse403
    | UpdateSessionResponse413
    | UpdateSessionResponse415
    | UpdateSessionResponse503
]:
    """Replaces the fields given; absent ones are kept.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        body (SessionFields | Unset): The fields a client may set on a session. On `PUT`, absent
            fields keep their value.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | SessionView | UpdateSessionResponse401 | UpdateSessionResponse403 | UpdateSessionResponse413 | UpdateSessionResponse415 | UpdateSessionResponse503]
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
    body: SessionFields | Unset = UNSET,
) -> (
    ErrorBody
    | SessionView
    | UpdateSessionResponse401
    | UpdateSessionResponse403
    | UpdateSessionResponse413
    | UpdateSessionResponse415
    | UpdateSessionResponse503
    | None
):
    """Replaces the fields given; absent ones are kept.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        body (SessionFields | Unset): The fields a client may set on a session. On `PUT`, absent
            fields keep their value.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | SessionView | UpdateSessionResponse401 | UpdateSessionResponse403 | UpdateSessionResponse413 | UpdateSessionResponse415 | UpdateSessionResponse503
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
    body: SessionFields | Unset = UNSET,
) -> Response[
    ErrorBody
    | SessionView
    | UpdateSessionResponse401
    | UpdateSessionResponse403
    | UpdateSessionResponse413
    | UpdateSessionResponse415
    | UpdateSessionResponse503
]:
    """Replaces the fields given; absent ones are kept.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        body (SessionFields | Unset): The fields a client may set on a session. On `PUT`, absent
            fields keep their value.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | SessionView | UpdateSessionResponse401 | UpdateSessionResponse403 | UpdateSessionResponse413 | UpdateSessionResponse415 | UpdateSessionResponse503]
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
    body: SessionFields | Unset = UNSET,
) -> (
    ErrorBody
    | SessionView
    | UpdateSessionResponse401
    | UpdateSessionResponse403
    | UpdateSessionResponse413
    | UpdateSessionResponse415
    | UpdateSessionResponse503
    | None
):
    """Replaces the fields given; absent ones are kept.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        body (SessionFields | Unset): The fields a client may set on a session. On `PUT`, absent
            fields keep their value.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | SessionView | UpdateSessionResponse401 | UpdateSessionResponse403 | UpdateSessionResponse413 | UpdateSessionResponse415 | UpdateSessionResponse503
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
        )
    ).parsed
