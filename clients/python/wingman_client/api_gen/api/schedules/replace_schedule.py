from __future__ import annotations

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.replace_schedule_response_401 import ReplaceScheduleResponse401
from ...models.replace_schedule_response_403 import ReplaceScheduleResponse403
from ...models.replace_schedule_response_413 import ReplaceScheduleResponse413
from ...models.replace_schedule_response_415 import ReplaceScheduleResponse415
from ...models.replace_schedule_response_503 import ReplaceScheduleResponse503
from ...models.schedule import Schedule
from ...models.schedule_request import ScheduleRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    body: ScheduleRequest,
    if_match: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_match, Unset):
        headers["If-Match"] = if_match

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/schedules/{id}".format(
            id=quote(str(id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ErrorBody
    | ReplaceScheduleResponse401
    | ReplaceScheduleResponse403
    | ReplaceScheduleResponse413
    | ReplaceScheduleResponse415
    | ReplaceScheduleResponse503
    | Schedule
    | None
):
    if response.status_code == 200:
        response_200 = Schedule.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ReplaceScheduleResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ReplaceScheduleResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = ErrorBody.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = ReplaceScheduleResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = ReplaceScheduleResponse415.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = ErrorBody.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = ReplaceScheduleResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ErrorBody
    | ReplaceScheduleResponse401
    | ReplaceScheduleResponse403
    | ReplaceScheduleResponse413
    | ReplaceScheduleResponse415
    | ReplaceScheduleResponse503
    | Schedule
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
    body: ScheduleRequest,
    if_match: str | Unset = UNSET,
) -> Response[
    ErrorBody
    | ReplaceScheduleResponse401
    | ReplaceScheduleResponse403
    | ReplaceScheduleResponse413
    | ReplaceScheduleResponse415
    | ReplaceScheduleResponse503
    | Schedule
]:
    """Replaces a schedule's definition; it stays paused or not, and its next
    tick is counted anew from now.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        if_match (str | Unset):
        body (ScheduleRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | ReplaceScheduleResponse401 | ReplaceScheduleResponse403 | ReplaceScheduleResponse413 | ReplaceScheduleResponse415 | ReplaceScheduleResponse503 | Schedule]
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
    body: ScheduleRequest,
    if_match: str | Unset = UNSET,
) -> (
    ErrorBody
    | ReplaceScheduleResponse401
    | ReplaceScheduleResponse403
    | ReplaceScheduleResponse413
    | ReplaceScheduleResponse415
    | ReplaceScheduleResponse503
    | Schedule
    | None
):
    """Replaces a schedule's definition; it stays paused or not, and its next
    tick is counted anew from now.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        if_match (str | Unset):
        body (ScheduleRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | ReplaceScheduleResponse401 | ReplaceScheduleResponse403 | ReplaceScheduleResponse413 | ReplaceScheduleResponse415 | ReplaceScheduleResponse503 | Schedule
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
    body: ScheduleRequest,
    if_match: str | Unset = UNSET,
) -> Response[
    ErrorBody
    | ReplaceScheduleResponse401
    | ReplaceScheduleResponse403
    | ReplaceScheduleResponse413
    | ReplaceScheduleResponse415
    | ReplaceScheduleResponse503
    | Schedule
]:
    """Replaces a schedule's definition; it stays paused or not, and its next
    tick is counted anew from now.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        if_match (str | Unset):
        body (ScheduleRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | ReplaceScheduleResponse401 | ReplaceScheduleResponse403 | ReplaceScheduleResponse413 | ReplaceScheduleResponse415 | ReplaceScheduleResponse503 | Schedule]
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
    body: ScheduleRequest,
    if_match: str | Unset = UNSET,
) -> (
    ErrorBody
    | ReplaceScheduleResponse401
    | ReplaceScheduleResponse403
    | ReplaceScheduleResponse413
    | ReplaceScheduleResponse415
    | ReplaceScheduleResponse503
    | Schedule
    | None
):
    """Replaces a schedule's definition; it stays paused or not, and its next
    tick is counted anew from now.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        if_match (str | Unset):
        body (ScheduleRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | ReplaceScheduleResponse401 | ReplaceScheduleResponse403 | ReplaceScheduleResponse413 | ReplaceScheduleResponse415 | ReplaceScheduleResponse503 | Schedule
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
            if_match=if_match,
        )
    ).parsed
