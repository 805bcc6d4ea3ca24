from __future__ import annotations

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.get_run_response_400 import GetRunResponse400
from ...models.get_run_response_401 import GetRunResponse401
from ...models.get_run_response_403 import GetRunResponse403
from ...models.get_run_response_503 import GetRunResponse503
from ...models.run_view import RunView
from ...types import Response


def _get_kwargs(
    id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/runs/{id}".format(
            id=quote(str(id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ErrorBody
    | GetRunResponse400
    | GetRunResponse401
    | GetRunResponse403
    | GetRunResponse503
    | RunView
    | None
):
    if response.status_code == 200:
        response_200 = RunView.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = GetRunResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = GetRunResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = GetRunResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 503:
        response_503 = GetRunResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ErrorBody
    | GetRunResponse400
    | GetRunResponse401
    | GetRunResponse403
    | GetRunResponse503
    | RunView
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
) -> Response[
    ErrorBody
    | GetRunResponse400
    | GetRunResponse401
    | GetRunResponse403
    | GetRunResponse503
    | RunView
]:
    """One run.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | GetRunResponse400 | GetRunResponse401 | GetRunResponse403 | GetRunResponse503 | RunView]
    """

    kwargs = _get_kwargs(
        id=id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient | Client,
) -> (
    ErrorBody
    | GetRunResponse400
    | GetRunResponse401
    | GetRunResponse403
    | GetRunResponse503
    | RunView
    | None
):
    """One run.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | GetRunResponse400 | GetRunResponse401 | GetRunResponse403 | GetRunResponse503 | RunView
    """

    return sync_detailed(
        id=id,
        client=client,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[
    ErrorBody
    | GetRunResponse400
    | GetRunResponse401
    | GetRunResponse403
    | GetRunResponse503
    | RunView
]:
    """One run.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | GetRunResponse400 | GetRunResponse401 | GetRunResponse403 | GetRunResponse503 | RunView]
    """

    kwargs = _get_kwargs(
        id=id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient | Client,
) -> (
    ErrorBody
    | GetRunResponse400
    | GetRunResponse401
    | GetRunResponse403
    | GetRunResponse503
    | RunView
    | None
):
    """One run.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | GetRunResponse400 | GetRunResponse401 | GetRunResponse403 | GetRunResponse503 | RunView
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
        )
    ).parsed
