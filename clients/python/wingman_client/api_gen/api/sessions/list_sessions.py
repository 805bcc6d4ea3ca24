from __future__ import annotations

from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.list_order import ListOrder
from ...models.list_sessions_response_401 import ListSessionsResponse401
from ...models.list_sessions_response_403 import ListSessionsResponse403
from ...models.list_sessions_response_503 import ListSessionsResponse503
from ...models.session_view import SessionView
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,
    order: ListOrder | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["limit"] = limit

    params["after"] = after

    json_order: str | Unset = UNSET
    if not isinstance(order, Unset):
        json_order = order

    params["order"] = json_order

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/sessions",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ErrorBody
    | ListSessionsResponse401
    | ListSessionsResponse403
    | ListSessionsResponse503
    | list[SessionView]
    | None
):
    if response.status_code == 200:
        response_200 = []
        _response_200 = response.json()
        for response_200_item_data in _response_200:
            response_200_item = SessionView.from_dict(response_200_item_data)

            response_200.append(response_200_item)

        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ListSessionsResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ListSessionsResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 503:
        response_503 = ListSessionsResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ErrorBody
    | ListSessionsResponse401
    | ListSessionsResponse403
    | ListSessionsResponse503
    | list[SessionView]
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
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,
    order: ListOrder | Unset = UNSET,
) -> Response[
    ErrorBody
    | ListSessionsResponse401
    | ListSessionsResponse403
    | ListSessionsResponse503
    | list[SessionView]
]:
    """Sessions with their histories, oldest first: a plain array, as the
    original API answered; every session unless `limit` asks for a page
    (the next one starts `after` the last ID).

    Args:
        limit (int | Unset):
        after (str | Unset):
        order (ListOrder | Unset): Which end of a list comes first: `asc`, oldest first (the
            default), or
            `desc`, newest first.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | ListSessionsResponse401 | ListSessionsResponse403 | ListSessionsResponse503 | list[SessionView]]
    """

    kwargs = _get_kwargs(
        limit=limit,
        after=after,
        order=order,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,
    order: ListOrder | Unset = UNSET,
) -> (
    ErrorBody
    | ListSessionsResponse401
    | ListSessionsResponse403
    | ListSessionsResponse503
    | list[SessionView]
    | None
):
    """Sessions with their histories, oldest first: a plain array, as the
    original API answered; every session unless `limit` asks for a page
    (the next one starts `after` the last ID).

    Args:
        limit (int | Unset):
        after (str | Unset):
        order (ListOrder | Unset): Which end of a list comes first: `asc`, oldest first (the
            default), or
            `desc`, newest first.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | ListSessionsResponse401 | ListSessionsResponse403 | ListSessionsResponse503 | list[SessionView]
    """

    return sync_detailed(
        client=client,
        limit=limit,
        after=after,
        order=order,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,
    order: ListOrder | Unset = UNSET,
) -> Response[
    ErrorBody
    | ListSessionsResponse401
    | ListSessionsResponse403
    | ListSessionsResponse503
    | list[SessionView]
]:
    """Sessions with their histories, oldest first: a plain array, as the
    original API answered; every session unless `limit` asks for a page
    (the next one starts `after` the last ID).

    Args:
        limit (int | Unset):
        after (str | Unset):
        order (ListOrder | Unset): Which end of a list comes first: `asc`, oldest first (the
            default), or
            `desc`, newest first.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | ListSessionsResponse401 | ListSessionsResponse403 | ListSessionsResponse503 | list[SessionView]]
    """

    kwargs = _get_kwargs(
        limit=limit,
        after=after,
        order=order,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,
    order: ListOrder | Unset = UNSET,
) -> (
    ErrorBody
    | ListSessionsResponse401
    | ListSessionsResponse403
    | ListSessionsResponse503
    | list[SessionView]
    | None
):
    """Sessions with their histories, oldest first: a plain array, as the
    original API answered; every session unless `limit` asks for a page
    (the next one starts `after` the last ID).

    Args:
        limit (int | Unset):
        after (str | Unset):
        order (ListOrder | Unset): Which end of a list comes first: `asc`, oldest first (the
            default), or
            `desc`, newest first.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | ListSessionsResponse401 | ListSessionsResponse403 | ListSessionsResponse503 | list[SessionView]
    """

    return (
        await asyncio_detailed(
            client=client,
            limit=limit,
            after=after,
            order=order,
        )
    ).parsed
