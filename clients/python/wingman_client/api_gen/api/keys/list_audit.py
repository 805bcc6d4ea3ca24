from __future__ import annotations

from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.audit_page import AuditPage
from ...models.error_body import ErrorBody
from ...models.list_audit_response_401 import ListAuditResponse401
from ...models.list_audit_response_403 import ListAuditResponse403
from ...models.list_audit_response_503 import ListAuditResponse503
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    owner: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["owner"] = owner

    params["limit"] = limit

    params["after"] = after

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/audit",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    AuditPage
    | ErrorBody
    | ListAuditResponse401
    | ListAuditResponse403
    | ListAuditResponse503
    | None
):
    if response.status_code == 200:
        response_200 = AuditPage.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ListAuditResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ListAuditResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 503:
        response_503 = ListAuditResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    AuditPage
    | ErrorBody
    | ListAuditResponse401
    | ListAuditResponse403
    | ListAuditResponse503
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
    owner: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,
) -> Response[
    AuditPage
    | ErrorBody
    | ListAuditResponse401
    | ListAuditResponse403
    | ListAuditResponse503
]:
    """Every state change made through the API (keys made and revoked
    included), who made it and on what, the newest first.

    Args:
        owner (str | Unset):
        limit (int | Unset):
        after (str | Unset): An ID the server gave: a ULID (26 characters of Crockford's base 32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AuditPage | ErrorBody | ListAuditResponse401 | ListAuditResponse403 | ListAuditResponse503]
    """

    kwargs = _get_kwargs(
        owner=owner,
        limit=limit,
        after=after,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    owner: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,
) -> (
    AuditPage
    | ErrorBody
    | ListAuditResponse401
    | ListAuditResponse403
    | ListAuditResponse503
    | None
):
    """Every state change made through the API (keys made and revoked
    included), who made it and on what, the newest first.

    Args:
        owner (str | Unset):
        limit (int | Unset):
        after (str | Unset): An ID the server gave: a ULID (26 characters of Crockford's base 32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AuditPage | ErrorBody | ListAuditResponse401 | ListAuditResponse403 | ListAuditResponse503
    """

    return sync_detailed(
        client=client,
        owner=owner,
        limit=limit,
        after=after,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    owner: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,
) -> Response[
    AuditPage
    | ErrorBody
    | ListAuditResponse401
    | ListAuditResponse403
    | ListAuditResponse503
]:
    """Every state change made through the API (keys made and revoked
    included), who made it and on what, the newest first.

    Args:
        owner (str | Unset):
        limit (int | Unset):
        after (str | Unset): An ID the server gave: a ULID (26 characters of Crockford's base 32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AuditPage | ErrorBody | ListAuditResponse401 | ListAuditResponse403 | ListAuditResponse503]
    """

    kwargs = _get_kwargs(
        owner=owner,
        limit=limit,
        after=after,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    owner: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,
) -> (
    AuditPage
    | ErrorBody
    | ListAuditResponse401
    | ListAuditResponse403
    | ListAuditResponse503
    | None
):
    """Every state change made through the API (keys made and revoked
    included), who made it and on what, the newest first.

    Args:
        owner (str | Unset):
        limit (int | Unset):
        after (str | Unset): An ID the server gave: a ULID (26 characters of Crockford's base 32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AuditPage | ErrorBody | ListAuditResponse401 | ListAuditResponse403 | ListAuditResponse503
    """

    return (
        await asyncio_detailed(
            client=client,
            owner=owner,
            limit=limit,
            after=after,
        )
    ).parsed
