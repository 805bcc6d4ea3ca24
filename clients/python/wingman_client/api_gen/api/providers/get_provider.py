from __future__ import annotations

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.get_provider_response_400 import GetProviderResponse400
from ...models.get_provider_response_401 import GetProviderResponse401
from ...models.get_provider_response_403 import GetProviderResponse403
from ...models.get_provider_response_503 import GetProviderResponse503
from ...models.provider_view import ProviderView
from ...types import Response


def _get_kwargs(
    id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/provider/{id}".format(
            id=quote(str(id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ErrorBody
    | GetProviderResponse400
    | GetProviderResponse401
    | GetProviderResponse403
    | GetProviderResponse503
    | ProviderView
    | None
):
    if response.status_code == 200:
        response_200 = ProviderView.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = GetProviderResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = GetProviderResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = GetProviderResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 503:
        response_503 = GetProviderResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ErrorBody
    | GetProviderResponse400
    | GetProviderResponse401
    | GetProviderResponse403
    | GetProviderResponse503
    | ProviderView
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
    | GetProviderResponse400
    | GetProviderResponse401
    | GetProviderResponse403
    | GetProviderResponse503
    | ProviderView
]:
    """One provider.

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | GetProviderResponse400 | GetProviderResponse401 | GetProviderResponse403 | GetProviderResponse503 | ProviderView]
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
    | GetProviderResponse400
    | GetProviderResponse401
    | GetProviderResponse403
    | GetProviderResponse503
    | ProviderView
    | None
):
    """One provider.

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | GetProviderResponse400 | GetProviderResponse401 | GetProviderResponse403 | GetProviderResponse503 | ProviderView
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
    | GetProviderResponse400
    | GetProviderResponse401
    | GetProviderResponse403
    | GetProviderResponse503
    | ProviderView
]:
    """One provider.

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | GetProviderResponse400 | GetProviderResponse401 | GetProviderResponse403 | GetProviderResponse503 | ProviderView]
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
    | GetProviderResponse400
    | GetProviderResponse401
    | GetProviderResponse403
    | GetProviderResponse503
    | ProviderView
    | None
):
    """One provider.

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | GetProviderResponse400 | GetProviderResponse401 | GetProviderResponse403 | GetProviderResponse503 | ProviderView
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
        )
    ).parsed
