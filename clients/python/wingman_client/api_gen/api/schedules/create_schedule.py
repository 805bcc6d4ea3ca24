from __future__ import annotations

from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.create_schedule_response_401 import CreateScheduleResponse401
from ...models.create_schedule_response_403 import CreateScheduleResponse403
from ...models.create_schedule_response_413 import CreateScheduleResponse413
from ...models.create_schedule_response_415 import CreateScheduleResponse415
from ...models.create_schedule_response_503 import CreateScheduleResponse503
from ...models.error_body import ErrorBody
from ...models.new_schedule_request import NewScheduleRequest
from ...models.schedule import Schedule
from ...types import Response


def _get_kwargs(
    *,
    body: NewScheduleRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/schedules",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    CreateScheduleResponse401
    | CreateScheduleResponse403
    | CreateScheduleResponse413
    | CreateScheduleResponse415
    | CreateScheduleResponse503
    | ErrorBody
    | Schedule
    | None
):
    if response.status_code == 201:
        response_201 = Schedule.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = CreateScheduleResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = CreateScheduleResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = CreateScheduleResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = CreateScheduleResponse415.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = ErrorBody.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = CreateScheduleResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    CreateScheduleResponse401
    | CreateScheduleResponse403
    | CreateScheduleResponse413
    | CreateScheduleResponse415
    | CreateScheduleResponse503
    | ErrorBody
    | Schedule
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
    body: NewScheduleRequest,
) -> Response[
    CreateScheduleResponse401
    | CreateScheduleResponse403
    | CreateScheduleResponse413
    | CreateScheduleResponse415
    | CreateScheduleResponse503
    | ErrorBody
    | Schedule
]:
    """Creates a schedule; its first tick is the first after now.

    Args:
        body (NewScheduleRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreateScheduleResponse401 | CreateScheduleResponse403 | CreateScheduleResponse413 | CreateScheduleResponse415 | CreateScheduleResponse503 | ErrorBody | Schedule]
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
    body: NewScheduleRequest,
) -> (
    CreateScheduleResponse401
    | CreateScheduleResponse403
    | CreateScheduleResponse413
    | CreateScheduleResponse415
    | CreateScheduleResponse503
    | ErrorBody
    | Schedule
    | None
):
    """Creates a schedule; its first tick is the first after now.

    Args:
        body (NewScheduleRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreateScheduleResponse401 | CreateScheduleResponse403 | CreateScheduleResponse413 | CreateScheduleResponse415 | CreateScheduleResponse503 | ErrorBody | Schedule
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: NewScheduleRequest,
) -> Response[
    CreateScheduleResponse401
    | CreateScheduleResponse403
    | CreateScheduleResponse413
    | CreateScheduleResponse415
    | CreateScheduleResponse503
    | ErrorBody
    | Schedule
]:
    """Creates a schedule; its first tick is the first after now.

    Args:
        body (NewScheduleRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreateScheduleResponse401 | CreateScheduleResponse403 | CreateScheduleResponse413 | CreateScheduleResponse415 | CreateScheduleResponse503 | ErrorBody | Schedule]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: NewScheduleRequest,
) -> (
    CreateScheduleResponse401
    | CreateScheduleResponse403
    | CreateScheduleResponse413
    | CreateScheduleResponse415
    | CreateScheduleResponse503
    | ErrorBody
    | Schedule
    | None
):
    """Creates a schedule; its first tick is the first after now.

    Args:
        body (NewScheduleRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreateScheduleResponse401 | CreateScheduleResponse403 | CreateScheduleResponse413 | CreateScheduleResponse415 | CreateScheduleResponse503 | ErrorBody | Schedule
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
