from __future__ import annotations

from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.create_formation_response_401 import CreateFormationResponse401
from ...models.create_formation_response_403 import CreateFormationResponse403
from ...models.create_formation_response_413 import CreateFormationResponse413
from ...models.create_formation_response_415 import CreateFormationResponse415
from ...models.create_formation_response_503 import CreateFormationResponse503
from ...models.error_body import ErrorBody
from ...models.formation import Formation
from ...models.new_formation import NewFormation
from ...types import Response


def _get_kwargs(
    *,
    body: NewFormation,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/formations",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    CreateFormationResponse401
    | CreateFormationResponse403
    | CreateFormationResponse413
    | CreateFormationResponse415
    | CreateFormationResponse503
    | ErrorBody
    | Formation
    | None
):
    if response.status_code == 201:
        response_201 = Formation.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = CreateFormationResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = CreateFormationResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = CreateFormationResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = CreateFormationResponse415.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = ErrorBody.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = CreateFormationResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    CreateFormationResponse401
    | CreateFormationResponse403
    | CreateFormationResponse413
    | CreateFormationResponse415
    | CreateFormationResponse503
    | ErrorBody
    | Formation
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
    body: NewFormation,
) -> Response[
    CreateFormationResponse401
    | CreateFormationResponse403
    | CreateFormationResponse413
    | CreateFormationResponse415
    | CreateFormationResponse503
    | ErrorBody
    | Formation
]:
    """Creates a formation, after checking its graph and that every agent and
    fleet it names exists.

    Args:
        body (NewFormation): The body of `POST /formations`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreateFormationResponse401 | CreateFormationResponse403 | CreateFormationResponse413 | CreateFormationResponse415 | CreateFormationResponse503 | ErrorBody | Formation]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: NewFormation,
) -> (
    CreateFormationResponse401
    | CreateFormationResponse403
    | CreateFormationResponse413
    | CreateFormationResponse415
    | CreateFormationResponse503
    | ErrorBody
    | Formation
    | None
):
    """Creates a formation, after checking its graph and that every agent and
    fleet it names exists.

    Args:
        body (NewFormation): The body of `POST /formations`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreateFormationResponse401 | CreateFormationResponse403 | CreateFormationResponse413 | CreateFormationResponse415 | CreateFormationResponse503 | ErrorBody | Formation
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: NewFormation,
) -> Response[
    CreateFormationResponse401
    | CreateFormationResponse403
    | CreateFormationResponse413
    | CreateFormationResponse415
    | CreateFormationResponse503
    | ErrorBody
    | Formation
]:
    """Creates a formation, after checking its graph and that every agent and
    fleet it names exists.

    Args:
        body (NewFormation): The body of `POST /formations`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreateFormationResponse401 | CreateFormationResponse403 | CreateFormationResponse413 | CreateFormationResponse415 | CreateFormationResponse503 | ErrorBody | Formation]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: NewFormation,
) -> (
    CreateFormationResponse401
    | CreateFormationResponse403
    | CreateFormationResponse413
    | CreateFormationResponse415
    | CreateFormationResponse503
    | ErrorBody
    | Formation
    | None
):
    """Creates a formation, after checking its graph and that every agent and
    fleet it names exists.

    Args:
        body (NewFormation): The body of `POST /formations`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreateFormationResponse401 | CreateFormationResponse403 | CreateFormationResponse413 | CreateFormationResponse415 | CreateFormationResponse503 | ErrorBody | Formation
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
