from __future__ import annotations

from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.health import Health
from ...models.health_response_403 import HealthResponse403
from ...models.unhealthy import Unhealthy
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/health",
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Health | HealthResponse403 | Unhealthy | None:
    if response.status_code == 200:
        response_200 = Health.from_dict(response.json())

        return response_200

    if response.status_code == 403:
        response_403 = HealthResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 503:
        response_503 = Unhealthy.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Health | HealthResponse403 | Unhealthy]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
) -> Response[Health | HealthResponse403 | Unhealthy]:
    """Liveness and readiness in one: 200 with the queue at a glance when the
    database answers, 503 when it does not.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Health | HealthResponse403 | Unhealthy]
    """

    kwargs = _get_kwargs()

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
) -> Health | HealthResponse403 | Unhealthy | None:
    """Liveness and readiness in one: 200 with the queue at a glance when the
    database answers, 503 when it does not.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Health | HealthResponse403 | Unhealthy
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
) -> Response[Health | HealthResponse403 | Unhealthy]:
    """Liveness and readiness in one: 200 with the queue at a glance when the
    database answers, 503 when it does not.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Health | HealthResponse403 | Unhealthy]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
) -> Health | HealthResponse403 | Unhealthy | None:
    """Liveness and readiness in one: 200 with the queue at a glance when the
    database answers, 503 when it does not.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Health | HealthResponse403 | Unhealthy
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
