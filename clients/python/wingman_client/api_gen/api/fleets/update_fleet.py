from __future__ import annotations

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.fleet import Fleet
from ...models.fleet_fields import FleetFields
from ...models.update_fleet_response_401 import UpdateFleetResponse401
from ...models.update_fleet_response_403 import UpdateFleetResponse403
from ...models.update_fleet_response_413 import UpdateFleetResponse413
from ...models.update_fleet_response_415 import UpdateFleetResponse415
from ...models.update_fleet_response_503 import UpdateFleetResponse503
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    body: FleetFields | Unset = UNSET,
    if_match: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_match, Unset):
        headers["If-Match"] = if_match

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/fleets/{id}".format(
            id=quote(str(id), safe=""),
        ),
    }

    if not isinstance(body, Unset):
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ErrorBody
    | Fleet
    | UpdateFleetResponse401
    | UpdateFleetResponse403
    | UpdateFleetResponse413
    | UpdateFleetResponse415
    | UpdateFleetResponse503
    | None
):
    if response.status_code == 200:
        response_200 = Fleet.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = UpdateFleetResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = UpdateFleetResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = ErrorBody.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = UpdateFleetResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = UpdateFleetResponse415.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = ErrorBody.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = UpdateFleetResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ErrorBody
    | Fleet
    | UpdateFleetResponse401
    | UpdateFleetResponse403
    | UpdateFleetResponse413
    | UpdateFleetResponse415
    | UpdateFleetResponse503
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
    body: FleetFields | Unset = UNSET,
    if_match: str | Unset = UNSET,
) -> Response[
    ErrorBody
    | Fleet
    | UpdateFleetResponse401
    | UpdateFleetResponse403
    | UpdateFleetResponse413
    | UpdateFleetResponse415
    | UpdateFleetResponse503
]:
    """Replaces the fields given; absent ones are kept (`"work_dir": null` clears it).

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        if_match (str | Unset):
        body (FleetFields | Unset): The fields a client may set on a fleet. On `PUT`, absent
            fields keep their value.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | Fleet | UpdateFleetResponse401 | UpdateFleetResponse403 | UpdateFleetResponse413 | UpdateFleetResponse415 | UpdateFleetResponse503]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
        if_match=if_match,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: FleetFields | Unset = UNSET,
    if_match: str | Unset = UNSET,
) -> (
    ErrorBody
    | Fleet
    | UpdateFleetResponse401
    | UpdateFleetResponse403
    | UpdateFleetResponse413
    | UpdateFleetResponse415
    | UpdateFleetResponse503
    | None
):
    """Replaces the fields given; absent ones are kept (`"work_dir": null` clears it).

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        if_match (str | Unset):
        body (FleetFields | Unset): The fields a client may set on a fleet. On `PUT`, absent
            fields keep their value.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | Fleet | UpdateFleetResponse401 | UpdateFleetResponse403 | UpdateFleetResponse413 | UpdateFleetResponse415 | UpdateFleetResponse503
    """

    return sync_detailed(
        id=id,
        client=client,
        body=body,
        if_match=if_match,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: FleetFields | Unset = UNSET,
    if_match: str | Unset = UNSET,
) -> Response[
    ErrorBody
    | Fleet
    | UpdateFleetResponse401
    | UpdateFleetResponse403
    | UpdateFleetResponse413
    | UpdateFleetResponse415
    | UpdateFleetResponse503
]:
    """Replaces the fields given; absent ones are kept (`"work_dir": null` clears it).

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        if_match (str | Unset):
        body (FleetFields | Unset): The fields a client may set on a fleet. On `PUT`, absent
            fields keep their value.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | Fleet | UpdateFleetResponse401 | UpdateFleetResponse403 | UpdateFleetResponse413 | UpdateFleetResponse415 | UpdateFleetResponse503]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
        if_match=if_match,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: FleetFields | Unset = UNSET,
    if_match: str | Unset = UNSET,
) -> (
    ErrorBody
    | Fleet
    | UpdateFleetResponse401
    | UpdateFleetResponse403
    | UpdateFleetResponse413
    | UpdateFleetResponse415
    | UpdateFleetResponse503
    | None
):
    """Replaces the fields given; absent ones are kept (`"work_dir": null` clears it).

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        if_match (str | Unset):
        body (FleetFields | Unset): The fields a client may set on a fleet. On `PUT`, absent
            fields keep their value.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | Fleet | UpdateFleetResponse401 | UpdateFleetResponse403 | UpdateFleetResponse413 | UpdateFleetResponse415 | UpdateFleetResponse503
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
            if_match=if_match,
        )
    ).parsed
