from __future__ import annotations

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.cancel_formation_run_response_400 import CancelFormationRunResponse400
from ...models.cancel_formation_run_response_401 import CancelFormationRunResponse401
from ...models.cancel_formation_run_response_403 import CancelFormationRunResponse403
from ...models.cancel_formation_run_response_503 import CancelFormationRunResponse503
from ...models.error_body import ErrorBody
from ...models.formation_run import FormationRun
from ...types import Response


def _get_kwargs(
    id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/formation-runs/{id}/cancel".format(
            id=quote(str(id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    CancelFormationRunResponse400
    | CancelFormationRunResponse401
    | CancelFormationRunResponse403
    | CancelFormationRunResponse503
    | ErrorBody
    | FormationRun
    | None
):
    if response.status_code == 202:
        response_202 = FormationRun.from_dict(response.json())

        return response_202

    if response.status_code == 400:
        response_400 = CancelFormationRunResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = CancelFormationRunResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = CancelFormationRunResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = ErrorBody.from_dict(response.json())

        return response_409

    if response.status_code == 503:
        response_503 = CancelFormationRunResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    CancelFormationRunResponse400
    | CancelFormationRunResponse401
    | CancelFormationRunResponse403
    | CancelFormationRunResponse503
    | ErrorBody
    | FormationRun
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
    CancelFormationRunResponse400
    | CancelFormationRunResponse401
    | CancelFormationRunResponse403
    | CancelFormationRunResponse503
    | ErrorBody
    | FormationRun
]:
    """Cancels a formation run: what runs ends, nothing new starts.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CancelFormationRunResponse400 | CancelFormationRunResponse401 | CancelFormationRunResponse403 | CancelFormationRunResponse503 | ErrorBody | FormationRun]
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
    CancelFormationRunResponse400
    | CancelFormationRunResponse401
    | CancelFormationRunResponse403
    | CancelFormationRunResponse503
    | ErrorBody
    | FormationRun
    | None
):
    """Cancels a formation run: what runs ends, nothing new starts.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CancelFormationRunResponse400 | CancelFormationRunResponse401 | CancelFormationRunResponse403 | CancelFormationRunResponse503 | ErrorBody | FormationRun
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
    CancelFormationRunResponse400
    | CancelFormationRunResponse401
    | CancelFormationRunResponse403
    | CancelFormationRunResponse503
    | ErrorBody
    | FormationRun
]:
    """Cancels a formation run: what runs ends, nothing new starts.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CancelFormationRunResponse400 | CancelFormationRunResponse401 | CancelFormationRunResponse403 | CancelFormationRunResponse503 | ErrorBody | FormationRun]
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
    CancelFormationRunResponse400
    | CancelFormationRunResponse401
    | CancelFormationRunResponse403
    | CancelFormationRunResponse503
    | ErrorBody
    | FormationRun
    | None
):
    """Cancels a formation run: what runs ends, nothing new starts.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CancelFormationRunResponse400 | CancelFormationRunResponse401 | CancelFormationRunResponse403 | CancelFormationRunResponse503 | ErrorBody | FormationRun
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
        )
    ).parsed
