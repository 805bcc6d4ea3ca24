from __future__ import annotations

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.deliveries import Deliveries
from ...models.error_body import ErrorBody
from ...models.list_formation_run_deliveries_response_400 import (
    ListFormationRunDeliveriesResponse400,
)
from ...models.list_formation_run_deliveries_response_401 import (
    ListFormationRunDeliveriesResponse401,
)
from ...models.list_formation_run_deliveries_response_403 import (
    ListFormationRunDeliveriesResponse403,
)
from ...models.list_formation_run_deliveries_response_503 import (
    ListFormationRunDeliveriesResponse503,
)
from ...types import Response


def _get_kwargs(
    id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/formation-runs/{id}/deliveries".format(
            id=quote(str(id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    Deliveries
    | ErrorBody
    | ListFormationRunDeliveriesResponse400
    | ListFormationRunDeliveriesResponse401
    | ListFormationRunDeliveriesResponse403
    | ListFormationRunDeliveriesResponse503
    | None
):
    if response.status_code == 200:
        response_200 = Deliveries.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ListFormationRunDeliveriesResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ListFormationRunDeliveriesResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ListFormationRunDeliveriesResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 503:
        response_503 = ListFormationRunDeliveriesResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    Deliveries
    | ErrorBody
    | ListFormationRunDeliveriesResponse400
    | ListFormationRunDeliveriesResponse401
    | ListFormationRunDeliveriesResponse403
    | ListFormationRunDeliveriesResponse503
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
    Deliveries
    | ErrorBody
    | ListFormationRunDeliveriesResponse400
    | ListFormationRunDeliveriesResponse401
    | ListFormationRunDeliveriesResponse403
    | ListFormationRunDeliveriesResponse503
]:
    """The announcements of a formation run's end.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Deliveries | ErrorBody | ListFormationRunDeliveriesResponse400 | ListFormationRunDeliveriesResponse401 | ListFormationRunDeliveriesResponse403 | ListFormationRunDeliveriesResponse503]
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
    Deliveries
    | ErrorBody
    | ListFormationRunDeliveriesResponse400
    | ListFormationRunDeliveriesResponse401
    | ListFormationRunDeliveriesResponse403
    | ListFormationRunDeliveriesResponse503
    | None
):
    """The announcements of a formation run's end.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Deliveries | ErrorBody | ListFormationRunDeliveriesResponse400 | ListFormationRunDeliveriesResponse401 | ListFormationRunDeliveriesResponse403 | ListFormationRunDeliveriesResponse503
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
    Deliveries
    | ErrorBody
    | ListFormationRunDeliveriesResponse400
    | ListFormationRunDeliveriesResponse401
    | ListFormationRunDeliveriesResponse403
    | ListFormationRunDeliveriesResponse503
]:
    """The announcements of a formation run's end.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Deliveries | ErrorBody | ListFormationRunDeliveriesResponse400 | ListFormationRunDeliveriesResponse401 | ListFormationRunDeliveriesResponse403 | ListFormationRunDeliveriesResponse503]
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
    Deliveries
    | ErrorBody
    | ListFormationRunDeliveriesResponse400
    | ListFormationRunDeliveriesResponse401
    | ListFormationRunDeliveriesResponse403
    | ListFormationRunDeliveriesResponse503
    | None
):
    """The announcements of a formation run's end.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Deliveries | ErrorBody | ListFormationRunDeliveriesResponse400 | ListFormationRunDeliveriesResponse401 | ListFormationRunDeliveriesResponse403 | ListFormationRunDeliveriesResponse503
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
        )
    ).parsed
