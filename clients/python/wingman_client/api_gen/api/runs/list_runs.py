from __future__ import annotations

from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.list_order import ListOrder
from ...models.list_runs_response_401 import ListRunsResponse401
from ...models.list_runs_response_403 import ListRunsResponse403
from ...models.list_runs_response_503 import ListRunsResponse503
from ...models.run_page import RunPage
from ...models.run_status import RunStatus
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    session_id: str | Unset = UNSET,
    fleet_run_id: str | Unset = UNSET,
    parent_run_id: str | Unset = UNSET,
    formation_run_id: str | Unset = UNSET,
    status: RunStatus | Unset = UNSET,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,
    order: ListOrder | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["session_id"] = session_id

    params["fleet_run_id"] = fleet_run_id

    params["parent_run_id"] = parent_run_id

    params["formation_run_id"] = formation_run_id

    json_status: str | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = status

    params["status"] = json_status

    params["limit"] = limit

    params["after"] = after

    json_order: str | Unset = UNSET
    if not isinstance(order, Unset):
        json_order = order

    params["order"] = json_order

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/runs",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ErrorBody
    | ListRunsResponse401
    | ListRunsResponse403
    | ListRunsResponse503
    | RunPage
    | None
):
    if response.status_code == 200:
        response_200 = RunPage.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ListRunsResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ListRunsResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 503:
        response_503 = ListRunsResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ErrorBody
    | ListRunsResponse401
    | ListRunsResponse403
    | ListRunsResponse503
    | RunPage
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
    session_id: str | Unset = UNSET,
    fleet_run_id: str | Unset = UNSET,
    parent_run_id: str | Unset = UNSET,
    formation_run_id: str | Unset = UNSET,
    status: RunStatus | Unset = UNSET,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,
    order: ListOrder | Unset = UNSET,
) -> Response[
    ErrorBody
    | ListRunsResponse401
    | ListRunsResponse403
    | ListRunsResponse503
    | RunPage
]:
    """Runs in submission order, a page at a time.

    Args:
        session_id (str | Unset):
        fleet_run_id (str | Unset):
        parent_run_id (str | Unset):
        formation_run_id (str | Unset):
        status (RunStatus | Unset): The life-cycle state of a run.
        limit (int | Unset):
        after (str | Unset): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        order (ListOrder | Unset): Which end of a list comes first: `asc`, oldest first (the
            default), or
            `desc`, newest first.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | ListRunsResponse401 | ListRunsResponse403 | ListRunsResponse503 | RunPage]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        fleet_run_id=fleet_run_id,
        parent_run_id=parent_run_id,
        formation_run_id=formation_run_id,
        status=status,
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
    session_id: str | Unset = UNSET,
    fleet_run_id: str | Unset = UNSET,
    parent_run_id: str | Unset = UNSET,
    formation_run_id: str | Unset = UNSET,
    status: RunStatus | Unset = UNSET,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,
    order: ListOrder | Unset = UNSET,
) -> (
    ErrorBody
    | ListRunsResponse401
    | ListRunsResponse403
    | ListRunsResponse503
    | RunPage
    | None
):
    """Runs in submission order, a page at a time.

    Args:
        session_id (str | Unset):
        fleet_run_id (str | Unset):
        parent_run_id (str | Unset):
        formation_run_id (str | Unset):
        status (RunStatus | Unset): The life-cycle state of a run.
        limit (int | Unset):
        after (str | Unset): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        order (ListOrder | Unset): Which end of a list comes first: `asc`, oldest first (the
            default), or
            `desc`, newest first.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | ListRunsResponse401 | ListRunsResponse403 | ListRunsResponse503 | RunPage
    """

    return sync_detailed(
        client=client,
        session_id=session_id,
        fleet_run_id=fleet_run_id,
        parent_run_id=parent_run_id,
        formation_run_id=formation_run_id,
        status=status,
        limit=limit,
        after=after,
        order=order,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    session_id: str | Unset = UNSET,
    fleet_run_id: str | Unset = UNSET,
    parent_run_id: str | Unset = UNSET,
    formation_run_id: str | Unset = UNSET,
    status: RunStatus | Unset = UNSET,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,
    order: ListOrder | Unset = UNSET,
) -> Response[
    ErrorBody
    | ListRunsResponse401
    | ListRunsResponse403
    | ListRunsResponse503
    | RunPage
]:
    """Runs in submission order, a page at a time.

    Args:
        session_id (str | Unset):
        fleet_run_id (str | Unset):
        parent_run_id (str | Unset):
        formation_run_id (str | Unset):
        status (RunStatus | Unset): The life-cycle state of a run.
        limit (int | Unset):
        after (str | Unset): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        order (ListOrder | Unset): Which end of a list comes first: `asc`, oldest first (the
            default), or
            `desc`, newest first.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | ListRunsResponse401 | ListRunsResponse403 | ListRunsResponse503 | RunPage]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        fleet_run_id=fleet_run_id,
        parent_run_id=parent_run_id,
        formation_run_id=formation_run_id,
        status=status,
        limit=limit,
        after=after,
        order=order,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    session_id: str | Unset = UNSET,
    fleet_run_id: str | Unset = UNSET,
    parent_run_id: str | Unset = UNSET,
    formation_run_id: str | Unset = UNSET,
    status: RunStatus | Unset = UNSET,
    limit: int | Unset = UNSET,
    after: str | Unset = UNSET,
    order: ListOrder | Unset = UNSET,
) -> (
    ErrorBody
    | ListRunsResponse401
    | ListRunsResponse403
    | ListRunsResponse503
    | RunPage
    | None
):
    """Runs in submission order, a page at a time.

    Args:
        session_id (str | Unset):
        fleet_run_id (str | Unset):
        parent_run_id (str | Unset):
        formation_run_id (str | Unset):
        status (RunStatus | Unset): The life-cycle state of a run.
        limit (int | Unset):
        after (str | Unset): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        order (ListOrder | Unset): Which end of a list comes first: `asc`, oldest first (the
            default), or
            `desc`, newest first.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | ListRunsResponse401 | ListRunsResponse403 | ListRunsResponse503 | RunPage
    """

    return (
        await asyncio_detailed(
            client=client,
            session_id=session_id,
            fleet_run_id=fleet_run_id,
            parent_run_id=parent_run_id,
            formation_run_id=formation_run_id,
            status=status,
            limit=limit,
            after=after,
            order=order,
        )
    ).parsed
