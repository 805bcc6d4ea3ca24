from __future__ import annotations

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.compact_body import CompactBody
from ...models.compact_session_response_401 import CompactSessionResponse401
from ...models.compact_session_response_403 import CompactSessionResponse403
from ...models.compact_session_response_413 import CompactSessionResponse413
from ...models.compact_session_response_415 import CompactSessionResponse415
from ...models.compact_session_response_503 import CompactSessionResponse503
from ...models.error_body import ErrorBody
from ...models.message_accepted import MessageAccepted
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    body: CompactBody | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/sessions/{id}/compact".format(
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
    CompactSessionResponse401
    | CompactSessionResponse403
    | CompactSessionResponse413
    | CompactSessionResponse415
    | CompactSessionResponse503
    | ErrorBody
    | MessageAccepted
    | None
):
    if response.status_code == 202:
        response_202 = MessageAccepted.from_dict(response.json())

        return response_202

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = CompactSessionResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = CompactSessionResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = ErrorBody.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = CompactSessionResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = CompactSessionResponse415.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = ErrorBody.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = ErrorBody.from_dict(response.json())

        return response_429

    if response.status_code == 503:
        response_503 = CompactSessionResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    CompactSessionResponse401
    | CompactSessionResponse403
    | CompactSessionResponse413
    | CompactSessionResponse415
    | CompactSessionResponse503
    | ErrorBody
    | MessageAccepted
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
    body: CompactBody | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[
    CompactSessionResponse401
    | CompactSessionResponse403
    | CompactSessionResponse413
    | CompactSessionResponse415
    | CompactSessionResponse503
    | ErrorBody
    | MessageAccepted
]:
    """Queues a compaction of the session's history behind the session's
    unfinished runs: old tool output is pruned and the older messages are
    summarized, whatever the history's size. The history keeps every
    message; a marker says what the agent is sent from then on.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        idempotency_key (str | Unset): 1 to 255 visible ASCII characters
        body (CompactBody | Unset): What a compaction may name (an empty body is fine).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CompactSessionResponse401 | CompactSessionResponse403 | CompactSessionResponse413 | CompactSessionResponse415 | CompactSessionResponse503 | ErrorBody | MessageAccepted]
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
    body: CompactBody | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> (
    CompactSessionResponse401
    | CompactSessionResponse403
    | CompactSessionResponse413
    | CompactSessionResponse415
    | CompactSessionResponse503
    | ErrorBody
    | MessageAccepted
    | None
):
    """Queues a compaction of the session's history behind the session's
    unfinished runs: old tool output is pruned and the older messages are
    summarized, whatever the history's size. The history keeps every
    message; a marker says what the agent is sent from then on.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        idempotency_key (str | Unset): 1 to 255 visible ASCII characters
        body (CompactBody | Unset): What a compaction may name (an empty body is fine).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CompactSessionResponse401 | CompactSessionResponse403 | CompactSessionResponse413 | CompactSessionResponse415 | CompactSessionResponse503 | ErrorBody | MessageAccepted
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
    body: CompactBody | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[
    CompactSessionResponse401
    | CompactSessionResponse403
    | CompactSessionResponse413
    | CompactSessionResponse415
    | CompactSessionResponse503
    | ErrorBody
    | MessageAccepted
]:
    """Queues a compaction of the session's history behind the session's
    unfinished runs: old tool output is pruned and the older messages are
    summarized, whatever the history's size. The history keeps every
    message; a marker says what the agent is sent from then on.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        idempotency_key (str | Unset): 1 to 255 visible ASCII characters
        body (CompactBody | Unset): What a compaction may name (an empty body is fine).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CompactSessionResponse401 | CompactSessionResponse403 | CompactSessionResponse413 | CompactSessionResponse415 | CompactSessionResponse503 | ErrorBody | MessageAccepted]
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
    body: CompactBody | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> (
    CompactSessionResponse401
    | CompactSessionResponse403
    | CompactSessionResponse413
    | CompactSessionResponse415
    | CompactSessionResponse503
    | ErrorBody
    | MessageAccepted
    | None
):
    """Queues a compaction of the session's history behind the session's
    unfinished runs: old tool output is pruned and the older messages are
    summarized, whatever the history's size. The history keeps every
    message; a marker says what the agent is sent from then on.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        idempotency_key (str | Unset): 1 to 255 visible ASCII characters
        body (CompactBody | Unset): What a compaction may name (an empty body is fine).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CompactSessionResponse401 | CompactSessionResponse403 | CompactSessionResponse413 | CompactSessionResponse415 | CompactSessionResponse503 | ErrorBody | MessageAccepted
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
