from __future__ import annotations

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.formation_run import FormationRun
from ...models.get_formation_run_response_400 import GetFormationRunResponse400
from ...models.get_formation_run_response_401 import GetFormationRunResponse401
from ...models.get_formation_run_response_403 import GetFormationRunResponse403
from ...models.get_formation_run_response_503 import GetFormationRunResponse503
from ...types import Response


def _get_kwargs(
    id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/formation-runs/{id}".format(
            id=quote(str(id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ErrorBody
    | FormationRun
    | GetFormationRunResponse400
    | GetFormationRunResponse401
    | GetFormationRunResponse403
    | GetFormationRunResponse503
    | None
):
    if response.status_code == 200:
        response_200 = FormationRun.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = GetFormationRunResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = GetFormationRunResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = GetFormationRunResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 503:
        response_503 = GetFormationRunResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ErrorBody
    | FormationRun
    | GetFormationRunResponse400
    | GetFormationRunResponse401
    | GetFormationRunResponse403
    | GetFormationRunResponse503
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
    | FormationRun
    | GetFormationRunResponse400
    | GetFormationRunResponse401
    | GetFormationRunResponse403
    | GetFormationRunResponse503
]:
    """A formation run: its status, every node's state, input and output, its outputs.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | FormationRun | GetFormationRunResponse400 | GetFormationRunResponse401 | GetFormationRunResponse403 | GetFormationRunResponse503]
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
    | FormationRun
    | GetFormationRunResponse400
    | GetFormationRunResponse401
    | GetFormationRunResponse403
    | GetFormationRunResponse503
    | None
):
    """A formation run: its status, every node's state, input and output, its outputs.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | FormationRun | GetFormationRunResponse400 | GetFormationRunResponse401 | GetFormationRunResponse403 | GetFormationRunResponse503
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
    | FormationRun
    | GetFormationRunResponse400
    | GetFormationRunResponse401
    | GetFormationRunResponse403
    | GetFormationRunResponse503
]:
    """A formation run: its status, every node's state, input and output, its outputs.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | FormationRun | GetFormationRunResponse400 | GetFormationRunResponse401 | GetFormationRunResponse403 | GetFormationRunResponse503]
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
    | FormationRun
    | GetFormationRunResponse400
    | GetFormationRunResponse401
    | GetFormationRunResponse403
    | GetFormationRunResponse503
    | None
):
    """A formation run: its status, every node's state, input and output, its outputs.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | FormationRun | GetFormationRunResponse400 | GetFormationRunResponse401 | GetFormationRunResponse403 | GetFormationRunResponse503
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
        )
    ).parsed
