from __future__ import annotations

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.formation import Formation
from ...models.get_formation_response_400 import GetFormationResponse400
from ...models.get_formation_response_401 import GetFormationResponse401
from ...models.get_formation_response_403 import GetFormationResponse403
from ...models.get_formation_response_503 import GetFormationResponse503
from ...types import Response


def _get_kwargs(
    id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/formations/{id}".format(
            id=quote(str(id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ErrorBody
    | Formation
    | GetFormationResponse400
    | GetFormationResponse401
    | GetFormationResponse403
    | GetFormationResponse503
    | None
):
    if response.status_code == 200:
        response_200 = Formation.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = GetFormationResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = GetFormationResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = GetFormationResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 503:
        response_503 = GetFormationResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ErrorBody
    | Formation
    | GetFormationResponse400
    | GetFormationResponse401
    | GetFormationResponse403
    | GetFormationResponse503
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
    | Formation
    | GetFormationResponse400
    | GetFormationResponse401
    | GetFormationResponse403
    | GetFormationResponse503
]:
    """One formation.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | Formation | GetFormationResponse400 | GetFormationResponse401 | GetFormationResponse403 | GetFormationResponse503]
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
    | Formation
    | GetFormationResponse400
    | GetFormationResponse401
    | GetFormationResponse403
    | GetFormationResponse503
    | None
):
    """One formation.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | Formation | GetFormationResponse400 | GetFormationResponse401 | GetFormationResponse403 | GetFormationResponse503
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
    | Formation
    | GetFormationResponse400
    | GetFormationResponse401
    | GetFormationResponse403
    | GetFormationResponse503
]:
    """One formation.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | Formation | GetFormationResponse400 | GetFormationResponse401 | GetFormationResponse403 | GetFormationResponse503]
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
    | Formation
    | GetFormationResponse400
    | GetFormationResponse401
    | GetFormationResponse403
    | GetFormationResponse503
    | None
):
    """One formation.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | Formation | GetFormationResponse400 | GetFormationResponse401 | GetFormationResponse403 | GetFormationResponse503
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
        )
    ).parsed
