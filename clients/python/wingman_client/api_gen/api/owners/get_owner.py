from __future__ import annotations

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.get_owner_response_401 import GetOwnerResponse401
from ...models.get_owner_response_403 import GetOwnerResponse403
from ...models.get_owner_response_503 import GetOwnerResponse503
from ...models.owner_view import OwnerView
from ...types import Response


def _get_kwargs(
    owner: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/owners/{owner}".format(
            owner=quote(str(owner), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ErrorBody
    | GetOwnerResponse401
    | GetOwnerResponse403
    | GetOwnerResponse503
    | OwnerView
    | None
):
    if response.status_code == 200:
        response_200 = OwnerView.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = GetOwnerResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = GetOwnerResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 503:
        response_503 = GetOwnerResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ErrorBody
    | GetOwnerResponse401
    | GetOwnerResponse403
    | GetOwnerResponse503
    | OwnerView
]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    owner: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[
    ErrorBody
    | GetOwnerResponse401
    | GetOwnerResponse403
    | GetOwnerResponse503
    | OwnerView
]:
    """An owner's quota, its queued runs and what its runs spent today.

    Args:
        owner (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | GetOwnerResponse401 | GetOwnerResponse403 | GetOwnerResponse503 | OwnerView]
    """

    kwargs = _get_kwargs(
        owner=owner,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    owner: str,
    *,
    client: AuthenticatedClient | Client,
) -> (
    ErrorBody
    | GetOwnerResponse401
    | GetOwnerResponse403
    | GetOwnerResponse503
    | OwnerView
    | None
):
    """An owner's quota, its queued runs and what its runs spent today.

    Args:
        owner (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | GetOwnerResponse401 | GetOwnerResponse403 | GetOwnerResponse503 | OwnerView
    """

    return sync_detailed(
        owner=owner,
        client=client,
    ).parsed


async def asyncio_detailed(
    owner: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[
    ErrorBody
    | GetOwnerResponse401
    | GetOwnerResponse403
    | GetOwnerResponse503
    | OwnerView
]:
    """An owner's quota, its queued runs and what its runs spent today.

    Args:
        owner (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | GetOwnerResponse401 | GetOwnerResponse403 | GetOwnerResponse503 | OwnerView]
    """

    kwargs = _get_kwargs(
        owner=owner,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    owner: str,
    *,
    client: AuthenticatedClient | Client,
) -> (
    ErrorBody
    | GetOwnerResponse401
    | GetOwnerResponse403
    | GetOwnerResponse503
    | OwnerView
    | None
):
    """An owner's quota, its queued runs and what its runs spent today.

    Args:
        owner (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | GetOwnerResponse401 | GetOwnerResponse403 | GetOwnerResponse503 | OwnerView
    """

    return (
        await asyncio_detailed(
            owner=owner,
            client=client,
        )
    ).parsed
