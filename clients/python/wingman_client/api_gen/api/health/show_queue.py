from __future__ import annotations

from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.queue_view import QueueView
from ...models.show_queue_response_401 import ShowQueueResponse401
from ...models.show_queue_response_403 import ShowQueueResponse403
from ...models.show_queue_response_503 import ShowQueueResponse503
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    next_: int | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["next"] = next_

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/queue",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ErrorBody
    | QueueView
    | ShowQueueResponse401
    | ShowQueueResponse403
    | ShowQueueResponse503
    | None
):
    if response.status_code == 200:
        response_200 = QueueView.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ShowQueueResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ShowQueueResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 503:
        response_503 = ShowQueueResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ErrorBody
    | QueueView
    | ShowQueueResponse401
    | ShowQueueResponse403
    | ShowQueueResponse503
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
    next_: int | Unset = UNSET,
) -> Response[
    ErrorBody
    | QueueView
    | ShowQueueResponse401
    | ShowQueueResponse403
    | ShowQueueResponse503
]:
    """The queue: queued runs by why they wait (ready for a worker, behind
    their session's unfinished run, behind their fleet's `worker_count`, or
    held because their concurrency key is at its limit), running and
    waiting runs, counts by priority and by key, and the ready runs a claim
    takes next, in its order; and each provider budget with its limits in
    force, its pause, and the inferences waiting for their share.

    Args:
        next_ (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | QueueView | ShowQueueResponse401 | ShowQueueResponse403 | ShowQueueResponse503]
    """

    kwargs = _get_kwargs(
        next_=next_,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    next_: int | Unset = UNSET,
) -> (
    ErrorBody
    | QueueView
    | ShowQueueResponse401
    | ShowQueueResponse403
    | ShowQueueResponse503
    | None
):
    """The queue: queued runs by why they wait (ready for a worker, behind
    their session's unfinished run, behind their fleet's `worker_count`, or
    held because their concurrency key is at its limit), running and
    waiting runs, counts by priority and by key, and the ready runs a claim
    takes next, in its order; and each provider budget with its limits in
    force, its pause, and the inferences waiting for their share.

    Args:
        next_ (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | QueueView | ShowQueueResponse401 | ShowQueueResponse403 | ShowQueueResponse503
    """

    return sync_detailed(
        client=client,
        next_=next_,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    next_: int | Unset = UNSET,
) -> Response[
    ErrorBody
    | QueueView
    | ShowQueueResponse401
    | ShowQueueResponse403
    | ShowQueueResponse503
]:
    """The queue: queued runs by why they wait (ready for a worker, behind
    their session's unfinished run, behind their fleet's `worker_count`, or
    held because their concurrency key is at its limit), running and
    waiting runs, counts by priority and by key, and the ready runs a claim
    takes next, in its order; and each provider budget with its limits in
    force, its pause, and the inferences waiting for their share.

    Args:
        next_ (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | QueueView | ShowQueueResponse401 | ShowQueueResponse403 | ShowQueueResponse503]
    """

    kwargs = _get_kwargs(
        next_=next_,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    next_: int | Unset = UNSET,
) -> (
    ErrorBody
    | QueueView
    | ShowQueueResponse401
    | ShowQueueResponse403
    | ShowQueueResponse503
    | None
):
    """The queue: queued runs by why they wait (ready for a worker, behind
    their session's unfinished run, behind their fleet's `worker_count`, or
    held because their concurrency key is at its limit), running and
    waiting runs, counts by priority and by key, and the ready runs a claim
    takes next, in its order; and each provider budget with its limits in
    force, its pause, and the inferences waiting for their share.

    Args:
        next_ (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | QueueView | ShowQueueResponse401 | ShowQueueResponse403 | ShowQueueResponse503
    """

    return (
        await asyncio_detailed(
            client=client,
            next_=next_,
        )
    ).parsed
