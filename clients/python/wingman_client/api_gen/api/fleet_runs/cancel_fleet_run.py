from __future__ import annotations

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.cancel_fleet_run_response_400 import CancelFleetRunResponse400
from ...models.cancel_fleet_run_response_401 import CancelFleetRunResponse401
from ...models.cancel_fleet_run_response_403 import CancelFleetRunResponse403
from ...models.cancel_fleet_run_response_503 import CancelFleetRunResponse503
from ...models.error_body import ErrorBody
from ...models.fleet_run import FleetRun
from ...types import Response


def _get_kwargs(
    id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/fleet-runs/{id}/cancel".format(
            id=quote(str(id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    CancelFleetRunResponse400
    | CancelFleetRunResponse401
    | CancelFleetRunResponse403
    | CancelFleetRunResponse503
    | ErrorBody
    | FleetRun
    | None
):
    if response.status_code == 202:
        response_202 = FleetRun.from_dict(response.json())

        return response_202

    if response.status_code == 400:
        response_400 = CancelFleetRunResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = CancelFleetRunResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = CancelFleetRunResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = ErrorBody.from_dict(response.json())

        return response_409

    if response.status_code == 503:
        response_503 = CancelFleetRunResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    CancelFleetRunResponse400
    | CancelFleetRunResponse401
    | CancelFleetRunResponse403
    | CancelFleetRunResponse503
    | ErrorBody
    | FleetRun
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
    CancelFleetRunResponse400
    | CancelFleetRunResponse401
    | CancelFleetRunResponse403
    | CancelFleetRunResponse503
    | ErrorBody
    | FleetRun
]:
    """Cancels every task that has not ended, in one transaction.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CancelFleetRunResponse400 | CancelFleetRunResponse401 | CancelFleetRunResponse403 | CancelFleetRunResponse503 | ErrorBody | FleetRun]
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
    CancelFleetRunResponse400
    | CancelFleetRunResponse401
    | CancelFleetRunResponse403
    | CancelFleetRunResponse503
    | ErrorBody
    | FleetRun
    | None
):
    """Cancels every task that has not ended, in one transaction.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CancelFleetRunResponse400 | CancelFleetRunResponse401 | CancelFleetRunResponse403 | CancelFleetRunResponse503 | ErrorBody | FleetRun
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
    CancelFleetRunResponse400
    | CancelFleetRunResponse401
    | CancelFleetRunResponse403
    | CancelFleetRunResponse503
    | ErrorBody
    | FleetRun
]:
    """Cancels every task that has not ended, in one transaction.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CancelFleetRunResponse400 | CancelFleetRunResponse401 | CancelFleetRunResponse403 | CancelFleetRunResponse503 | ErrorBody | FleetRun]
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
    CancelFleetRunResponse400
    | CancelFleetRunResponse401
    | CancelFleetRunResponse403
    | CancelFleetRunResponse503
    | ErrorBody
    | FleetRun
    | None
):
    """Cancels every task that has not ended, in one transaction.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CancelFleetRunResponse400 | CancelFleetRunResponse401 | CancelFleetRunResponse403 | CancelFleetRunResponse503 | ErrorBody | FleetRun
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
        )
    ).parsed
