from __future__ import annotations

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.get_session_response_401 import GetSessionResponse401
from ...models.get_session_response_403 import GetSessionResponse403
from ...models.get_session_response_503 import GetSessionResponse503
from ...models.session_view import SessionView
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    at: str | Unset = UNSET,
    branch: int | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["at"] = at

    params["branch"] = branch

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/sessions/{id}".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ErrorBody
    | GetSessionResponse401
    | GetSessionResponse403
    | GetSessionResponse503
    | SessionView
    | None
):
    if response.status_code == 200:
        response_200 = SessionView.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = GetSessionResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = GetSessionResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = ErrorBody.from_dict(response.json())

        return response_409

    if response.status_code == 503:
        response_503 = GetSessionResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ErrorBody
    | GetSessionResponse401
    | GetSessionResponse403
    | GetSessionResponse503
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
    at: str | Unset = UNSET,
    branch: int | Unset = UNSET,
) -> Response[
    ErrorBody
    | GetSessionResponse401
    | GetSessionResponse403
    | GetSessionResponse503
    | SessionView
]:
    """One session with its history.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        at (str | Unset): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        branch (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | GetSessionResponse401 | GetSessionResponse403 | GetSessionResponse503 | SessionView]
    """

    kwargs = _get_kwargs(
        id=id,
        at=at,
        branch=branch,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    at: str | Unset = UNSET,
    branch: int | Unset = UNSET,
) -> (
    ErrorBody
    | GetSessionResponse401
    | GetSessionResponse403
    | GetSessionResponse503
    | SessionView
    | None
):
    """One session with its history.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        at (str | Unset): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        branch (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | GetSessionResponse401 | GetSessionResponse403 | GetSessionResponse503 | SessionView
    """

    return sync_detailed(
        id=id,
        client=client,
        at=at,
        branch=branch,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    at: str | Unset = UNSET,
    branch: int | Unset = UNSET,
) -> Response[
    ErrorBody
    | GetSessionResponse401
    | GetSessionResponse403
    | GetSessionResponse503
    | SessionView
]:
    """One session with its history.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        at (str | Unset): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        branch (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | GetSessionResponse401 | GetSessionResponse403 | GetSessionResponse503 | SessionView]
    """

    kwargs = _get_kwargs(
        id=id,
        at=at,
        branch=branch,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    at: str | Unset = UNSET,
    branch: int | Unset = UNSET,
) -> (
    ErrorBody
    | GetSessionResponse401
    | GetSessionResponse403
    | GetSessionResponse503
    | SessionView
    | None
):
    """One session with its history.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        at (str | Unset): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        branch (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | GetSessionResponse401 | GetSessionResponse403 | GetSessionResponse503 | SessionView
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            at=at,
            branch=branch,
        )
    ).parsed
