from __future__ import annotations

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.delete_fleet_response_400 import DeleteFleetResponse400
from ...models.delete_fleet_response_401 import DeleteFleetResponse401
from ...models.delete_fleet_response_403 import DeleteFleetResponse403
from ...models.delete_fleet_response_503 import DeleteFleetResponse503
from ...models.deleted import Deleted
from ...models.error_body import ErrorBody
from ...types import Response


def _get_kwargs(
    id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/fleets/{id}".format(
            id=quote(str(id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    DeleteFleetResponse400
    | DeleteFleetResponse401
    | DeleteFleetResponse403
    | DeleteFleetResponse503
    | Deleted
    | ErrorBody
    | None
):
    if response.status_code == 200:
        response_200 = Deleted.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = DeleteFleetResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = DeleteFleetResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = DeleteFleetResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 503:
        response_503 = DeleteFleetResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    DeleteFleetResponse400
    | DeleteFleetResponse401
    | DeleteFleetResponse403
    | DeleteFleetResponse503
    | Deleted
    | ErrorBody
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
    DeleteFleetResponse400
    | DeleteFleetResponse401
    | DeleteFleetResponse403
    | DeleteFleetResponse503
    | Deleted
    | ErrorBody
]:
    """Deletes a fleet; its fleet runs stay readable.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeleteFleetResponse400 | DeleteFleetResponse401 | DeleteFleetResponse403 | DeleteFleetResponse503 | Deleted | ErrorBody]
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
    DeleteFleetResponse400
    | DeleteFleetResponse401
    | DeleteFleetResponse403
    | DeleteFleetResponse503
    | Deleted
    | ErrorBody
    | None
):
    """Deletes a fleet; its fleet runs stay readable.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeleteFleetResponse400 | DeleteFleetResponse401 | DeleteFleetResponse403 | DeleteFleetResponse503 | Deleted | ErrorBody
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
    DeleteFleetResponse400
    | DeleteFleetResponse401
    | DeleteFleetResponse403
    | DeleteFleetResponse503
    | Deleted
    | ErrorBody
]:
    """Deletes a fleet; its fleet runs stay readable.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeleteFleetResponse400 | DeleteFleetResponse401 | DeleteFleetResponse403 | DeleteFleetResponse503 | Deleted | ErrorBody]
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
    DeleteFleetResponse400
    | DeleteFleetResponse401
    | DeleteFleetResponse403
    | DeleteFleetResponse503
    | Deleted
    | ErrorBody
    | None
):
    """Deletes a fleet; its fleet runs stay readable.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeleteFleetResponse400 | DeleteFleetResponse401 | DeleteFleetResponse403 | DeleteFleetResponse503 | Deleted | ErrorBody
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
        )
    ).parsed
