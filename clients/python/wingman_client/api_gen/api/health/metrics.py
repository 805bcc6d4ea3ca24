from __future__ import annotations

from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.metrics_response_401 import MetricsResponse401
from ...models.metrics_response_403 import MetricsResponse403
from ...models.metrics_response_503 import MetricsResponse503
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/metrics",
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> MetricsResponse401 | MetricsResponse403 | MetricsResponse503 | str | None:
    if response.status_code == 200:
        response_200 = response.text
        return response_200

    if response.status_code == 401:
        response_401 = MetricsResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = MetricsResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 503:
        response_503 = MetricsResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[MetricsResponse401 | MetricsResponse403 | MetricsResponse503 | str]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
) -> Response[MetricsResponse401 | MetricsResponse403 | MetricsResponse503 | str]:
    """The process's families and the database's gauges. A database that does
    not answer leaves its gauges without samples rather than failing the
    scrape: the process's own counts are still worth having.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MetricsResponse401 | MetricsResponse403 | MetricsResponse503 | str]
    """

    kwargs = _get_kwargs()

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
) -> MetricsResponse401 | MetricsResponse403 | MetricsResponse503 | str | None:
    """The process's families and the database's gauges. A database that does
    not answer leaves its gauges without samples rather than failing the
    scrape: the process's own counts are still worth having.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MetricsResponse401 | MetricsResponse403 | MetricsResponse503 | str
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
) -> Response[MetricsResponse401 | MetricsResponse403 | MetricsResponse503 | str]:
    """The process's families and the database's gauges. A database that does
    not answer leaves its gauges without samples rather than failing the
    scrape: the process's own counts are still worth having.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MetricsResponse401 | MetricsResponse403 | MetricsResponse503 | str]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
) -> MetricsResponse401 | MetricsResponse403 | MetricsResponse503 | str | None:
    """The process's families and the database's gauges. A database that does
    not answer leaves its gauges without samples rather than failing the
    scrape: the process's own counts are still worth having.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MetricsResponse401 | MetricsResponse403 | MetricsResponse503 | str
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
