from __future__ import annotations

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.event_frame import EventFrame
from ...models.run_body import RunBody
from ...models.run_fleet_stream_response_401 import RunFleetStreamResponse401
from ...models.run_fleet_stream_response_403 import RunFleetStreamResponse403
from ...models.run_fleet_stream_response_415 import RunFleetStreamResponse415
from ...models.run_fleet_stream_response_503 import RunFleetStreamResponse503
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    body: RunBody,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/fleets/{id}/run/stream".format(
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
    | EventFrame
    | RunFleetStreamResponse401
    | RunFleetStreamResponse403
    | RunFleetStreamResponse415
    | RunFleetStreamResponse503
    | None
):
    if response.status_code == 200:
        response_200 = EventFrame.from_dict(response.text)

        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = RunFleetStreamResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = RunFleetStreamResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = ErrorBody.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = RunFleetStreamResponse415.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = ErrorBody.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = ErrorBody.from_dict(response.json())

        return response_429

    if response.status_code == 503:
        response_503 = RunFleetStreamResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ErrorBody
    | EventFrame
    | RunFleetStreamResponse401
    | RunFleetStreamResponse403
    | RunFleetStreamResponse415
    | RunFleetStreamResponse503
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
    body: RunBody,
    idempotency_key: str | Unset = UNSET,
) -> Response[
    ErrorBody
    | EventFrame
    | RunFleetStreamResponse401
    | RunFleetStreamResponse403
    | RunFleetStreamResponse415
    | RunFleetStreamResponse503
]:
    """Enqueues, then streams the fleet run's events: `fleet_queued`, a `result`
    per task (in the order they finish), `done`.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        idempotency_key (str | Unset): 1 to 255 visible ASCII characters
        body (RunBody): The body of a fleet run: the original API's.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | EventFrame | RunFleetStreamResponse401 | RunFleetStreamResponse403 | RunFleetStreamResponse415 | RunFleetStreamResponse503]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: RunBody,
    idempotency_key: str | Unset = UNSET,
) -> (
    ErrorBody
    | EventFrame
    | RunFleetStreamResponse401
    | RunFleetStreamResponse403
    | RunFleetStreamResponse415
    | RunFleetStreamResponse503
    | None
):
    """Enqueues, then streams the fleet run's events: `fleet_queued`, a `result`
    per task (in the order they finish), `done`.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        idempotency_key (str | Unset): 1 to 255 visible ASCII characters
        body (RunBody): The body of a fleet run: the original API's.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | EventFrame | RunFleetStreamResponse401 | RunFleetStreamResponse403 | RunFleetStreamResponse415 | RunFleetStreamResponse503
    """

    return sync_detailed(
        id=id,
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: RunBody,
    idempotency_key: str | Unset = UNSET,
) -> Response[
    ErrorBody
    | EventFrame
    | RunFleetStreamResponse401
    | RunFleetStreamResponse403
    | RunFleetStreamResponse415
    | RunFleetStreamResponse503
]:
    """Enqueues, then streams the fleet run's events: `fleet_queued`, a `result`
    per task (in the order they finish), `done`.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        idempotency_key (str | Unset): 1 to 255 visible ASCII characters
        body (RunBody): The body of a fleet run: the original API's.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | EventFrame | RunFleetStreamResponse401 | RunFleetStreamResponse403 | RunFleetStreamResponse415 | RunFleetStreamResponse503]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: RunBody,
    idempotency_key: str | Unset = UNSET,
) -> (
    ErrorBody
    | EventFrame
    | RunFleetStreamResponse401
    | RunFleetStreamResponse403
    | RunFleetStreamResponse415
    | RunFleetStreamResponse503
    | None
):
    """Enqueues, then streams the fleet run's events: `fleet_queued`, a `result`
    per task (in the order they finish), `done`.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        idempotency_key (str | Unset): 1 to 255 visible ASCII characters
        body (RunBody): The body of a fleet run: the original API's.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | EventFrame | RunFleetStreamResponse401 | RunFleetStreamResponse403 | RunFleetStreamResponse415 | RunFleetStreamResponse503
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
