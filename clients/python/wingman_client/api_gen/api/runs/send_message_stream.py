from __future__ import annotations

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.message_body import MessageBody
from ...models.message_stream_frame import MessageStreamFrame
from ...models.send_message_stream_response_401 import SendMessageStreamResponse401
from ...models.send_message_stream_response_403 import SendMessageStreamResponse403
from ...models.send_message_stream_response_413 import SendMessageStreamResponse413
from ...models.send_message_stream_response_415 import SendMessageStreamResponse415
from ...models.send_message_stream_response_503 import SendMessageStreamResponse503
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    body: MessageBody,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/sessions/{id}/message/stream".format(
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
    | MessageStreamFrame
    | SendMessageStreamResponse401
    | SendMessageStreamResponse403
    | SendMessageStreamResponse413
    | SendMessageStreamResponse415
    | SendMessageStreamResponse503
    | None
):
    if response.status_code == 200:
        response_200 = MessageStreamFrame.from_dict(response.text)

        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = SendMessageStreamResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = SendMessageStreamResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = ErrorBody.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = SendMessageStreamResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = SendMessageStreamResponse415.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = ErrorBody.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = ErrorBody.from_dict(response.json())

        return response_429

    if response.status_code == 503:
        response_503 = SendMessageStreamResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ErrorBody
    | MessageStreamFrame
    | SendMessageStreamResponse401
    | SendMessageStreamResponse403
    | SendMessageStreamResponse413
    | SendMessageStreamResponse415
    | SendMessageStreamResponse503
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
    body: MessageBody,
    idempotency_key: str | Unset = UNSET,
) -> Response[
    ErrorBody
    | MessageStreamFrame
    | SendMessageStreamResponse401
    | SendMessageStreamResponse403
    | SendMessageStreamResponse413
    | SendMessageStreamResponse415
    | SendMessageStreamResponse503
]:
    """Enqueues like `POST /sessions/{id}/message`, then answers with the run's
    events as SSE: `run_queued` first, the original API's `message_stop`
    after each `step_completed`, and `done` last.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        idempotency_key (str | Unset): 1 to 255 visible ASCII characters
        body (MessageBody): A message for a session's agent. `prompt` is accepted for `message`,
            as
            an early version of the original API named it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | MessageStreamFrame | SendMessageStreamResponse401 | SendMessageStreamResponse403 | SendMessageStreamResponse413 | SendMessageStreamResponse415 | SendMessageStreamResponse503]
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
    body: MessageBody,
    idempotency_key: str | Unset = UNSET,
) -> (
    ErrorBody
    | MessageStreamFrame
    | SendMessageStreamResponse401
    | SendMessageStreamResponse403
    | SendMessageStreamResponse413
    | SendMessageStreamResponse415
    | SendMessageStreamResponse503
    | None
):
    """Enqueues like `POST /sessions/{id}/message`, then answers with the run's
    events as SSE: `run_queued` first, the original API's `message_stop`
    after each `step_completed`, and `done` last.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        idempotency_key (str | Unset): 1 to 255 visible ASCII characters
        body (MessageBody): A message for a session's agent. `prompt` is accepted for `message`,
            as
            an early version of the original API named it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | MessageStreamFrame | SendMessageStreamResponse401 | SendMessageStreamResponse403 | SendMessageStreamResponse413 | SendMessageStreamResponse415 | SendMessageStreamResponse503
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
    body: MessageBody,
    idempotency_key: str | Unset = UNSET,
) -> Response[
    ErrorBody
    | MessageStreamFrame
    | SendMessageStreamResponse401
    | SendMessageStreamResponse403
    | SendMessageStreamResponse413
    | SendMessageStreamResponse415
    | SendMessageStreamResponse503
]:
    """Enqueues like `POST /sessions/{id}/message`, then answers with the run's
    events as SSE: `run_queued` first, the original API's `message_stop`
    after each `step_completed`, and `done` last.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        idempotency_key (str | Unset): 1 to 255 visible ASCII characters
        body (MessageBody): A message for a session's agent. `prompt` is accepted for `message`,
            as
            an early version of the original API named it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | MessageStreamFrame | SendMessageStreamResponse401 | SendMessageStreamResponse403 | SendMessageStreamResponse413 | SendMessageStreamResponse415 | SendMessageStreamResponse503]
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
    body: MessageBody,
    idempotency_key: str | Unset = UNSET,
) -> (
    ErrorBody
    | MessageStreamFrame
    | SendMessageStreamResponse401
    | SendMessageStreamResponse403
    | SendMessageStreamResponse413
    | SendMessageStreamResponse415
    | SendMessageStreamResponse503
    | None
):
    """Enqueues like `POST /sessions/{id}/message`, then answers with the run's
    events as SSE: `run_queued` first, the original API's `message_stop`
    after each `step_completed`, and `done` last.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        idempotency_key (str | Unset): 1 to 255 visible ASCII characters
        body (MessageBody): A message for a session's agent. `prompt` is accepted for `message`,
            as
            an early version of the original API named it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | MessageStreamFrame | SendMessageStreamResponse401 | SendMessageStreamResponse403 | SendMessageStreamResponse413 | SendMessageStreamResponse415 | SendMessageStreamResponse503
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
