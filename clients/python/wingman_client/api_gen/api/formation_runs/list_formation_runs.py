from __future__ import annotations

from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.formation_run_page import FormationRunPage
from ...models.list_formation_runs_response_401 import ListFormationRunsResponse401
from ...models.list_formation_runs_response_403 import ListFormationRunsResponse403
from ...models.list_formation_runs_response_503 import ListFormationRunsResponse503
from ...models.list_order import ListOrder
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    formation_id: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,
    order: ListOrder | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["formation_id"] = formation_id

    params["limit"] = limit

    params["after"] = after

    json_order: str | Unset = UNSET
    if not isinstance(order, Unset):
        json_order = order

    params["order"] = json_order

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/formation-runs",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ErrorBody
    | FormationRunPage
    | ListFormationRunsResponse401
    | ListFormationRunsResponse403
    | ListFormationRunsResponse503
    | None
):
    if response.status_code == 200:
        response_200 = FormationRunPage.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ListFormationRunsResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ListFormationRunsResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 503:
        response_503 = ListFormationRunsResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ErrorBody
    | FormationRunPage
    | ListFormationRunsResponse401
    | ListFormationRunsResponse403
    | ListFormationRunsResponse503
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
    formation_id: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,
    order: ListOrder | Unset = UNSET,
) -> Response[
    ErrorBody
    | FormationRunPage
    | ListFormationRunsResponse401
    | ListFormationRunsResponse403
    | ListFormationRunsResponse503
]:
    """Formation runs, oldest first, a page at a time.

    Args:
        formation_id (str | Unset):
        limit (int | Unset):
        after (str | Unset):
        order (ListOrder | Unset): Which end of a list comes first: `asc`, oldest first (the
            default), or
            `desc`, newest first.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | FormationRunPage | ListFormationRunsResponse401 | ListFormationRunsResponse403 | ListFormationRunsResponse503]
    """

    kwargs = _get_kwargs(
        formation_id=formation_id,
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
    formation_id: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,
    order: ListOrder | Unset = UNSET,
) -> (
    ErrorBody
    | FormationRunPage
    | ListFormationRunsResponse401
    | ListFormationRunsResponse403
    | ListFormationRunsResponse503
    | None
):
    """Formation runs, oldest first, a page at a time.

    Args:
        formation_id (str | Unset):
        limit (int | Unset):
        after (str | Unset):
        order (ListOrder | Unset): Which end of a list comes first: `asc`, oldest first (the
            default), or
            `desc`, newest first.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | FormationRunPage | ListFormationRunsResponse401 | ListFormationRunsResponse403 | ListFormationRunsResponse503
    """

    return sync_detailed(
        client=client,
        formation_id=formation_id,
        limit=limit,
        after=after,
        order=order,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    formation_id: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,
    order: ListOrder | Unset = UNSET,
) -> Response[
    ErrorBody
    | FormationRunPage
    | ListFormationRunsResponse401
    | ListFormationRunsResponse403
    | ListFormationRunsResponse503
]:
    """Formation runs, oldest first, a page at a time.

    Args:
        formation_id (str | Unset):
        limit (int | Unset):
        after (str | Unset):
        order (ListOrder | Unset): Which end of a list comes first: `asc`, oldest first (the
            default), or
            `desc`, newest first.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | FormationRunPage | ListFormationRunsResponse401 | ListFormationRunsResponse403 | ListFormationRunsResponse503]
    """

    kwargs = _get_kwargs(
        formation_id=formation_id,
        limit=limit,
        after=after,
        order=order,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    formation_id: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,
    order: ListOrder | Unset = UNSET,
) -> (
    ErrorBody
    | FormationRunPage
    | ListFormationRunsResponse401
    | ListFormationRunsResponse403
    | ListFormationRunsResponse503
    | None
):
    """Formation runs, oldest first, a page at a time.

    Args:
        formation_id (str | Unset):
        limit (int | Unset):
        after (str | Unset):
        order (ListOrder | Unset): Which end of a list comes first: `asc`, oldest first (the
            default), or
            `desc`, newest first.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | FormationRunPage | ListFormationRunsResponse401 | ListFormationRunsResponse403 | ListFormationRunsResponse503
    """

    return (
        await asyncio_detailed(
            client=client,
            formation_id=formation_id,
            limit=limit,
            after=after,
            order=order,
        )
    ).parsed
