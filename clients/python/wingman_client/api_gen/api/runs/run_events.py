from __future__ import annotations

from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.event import Event
from ...models.run_events_response_401 import RunEventsResponse401
from ...models.run_events_response_403 import RunEventsResponse403
from ...models.run_events_response_503 import RunEventsResponse503
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    after: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    last_event_id: int | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(last_event_id, Unset):
        headers["Last-Event-ID"] = str(last_event_id)

    params: dict[str, Any] = {}

    params["after"] = after

    params["limit"] = limit

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/runs/{id}/events".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    Any
    | ErrorBody
    | RunEventsResponse401
    | RunEventsResponse403
    | RunEventsResponse503
    | list[Event]
    | None
):
    if response.status_code == 200:
        response_200 = []
        _response_200 = response.json()
        for response_200_item_data in _response_200:
            response_200_item = Event.from_dict(response_200_item_data)

            response_200.append(response_200_item)

        return response_200

    if response.status_code == 204:
        response_204 = cast(Any, None)
        return response_204

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = RunEventsResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = RunEventsResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 503:
        response_503 = RunEventsResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    Any
    | ErrorBody
    | RunEventsResponse401
    | RunEventsResponse403
    | RunEventsResponse503
    | list[Event]
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
    after: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    last_event_id: int | Unset = UNSET,
) -> Response[
    Any
    | ErrorBody
    | RunEventsResponse401
    | RunEventsResponse403
    | RunEventsResponse503
    | list[Event]
]:
    """A run's events: with `Accept: text/event-stream`, SSE (replay after
    `Last-Event-ID` or `?after=N`, then live, closed after `done`; `204` once
    a finished run's log is all read); otherwise a JSON array of a page of the
    events after `?after=N` (`?limit=`, `Wingman-Next-After`).

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        after (int | Unset): An event's `seq`: a whole number from 0
        limit (int | Unset):
        last_event_id (int | Unset): An event's `seq`: a whole number from 0

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorBody | RunEventsResponse401 | RunEventsResponse403 | RunEventsResponse503 | list[Event]]
    """

    kwargs = _get_kwargs(
        id=id,
        after=after,
        limit=limit,
        last_event_id=last_event_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    after: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    last_event_id: int | Unset = UNSET,
) -> (
    Any
    | ErrorBody
    | RunEventsResponse401
    | RunEventsResponse403
    | RunEventsResponse503
    | list[Event]
    | None
):
    """A run's events: with `Accept: text/event-stream`, SSE (replay after
    `Last-Event-ID` or `?after=N`, then live, closed after `done`; `204` once
    a finished run's log is all read); otherwise a JSON array of a page of the
    events after `?after=N` (`?limit=`, `Wingman-Next-After`).

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        after (int | Unset): An event's `seq`: a whole number from 0
        limit (int | Unset):
        last_event_id (int | Unset): An event's `seq`: a whole number from 0

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorBody | RunEventsResponse401 | RunEventsResponse403 | RunEventsResponse503 | list[Event]
    """

    return sync_detailed(
        id=id,
        client=client,
        after=after,
        limit=limit,
        last_event_id=last_event_id,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    after: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    last_event_id: int | Unset = UNSET,
) -> Response[
    Any
    | ErrorBody
    | RunEventsResponse401
    | RunEventsResponse403
    | RunEventsResponse503
    | list[Event]
]:
    """A run's events: with `Accept: text/event-stream`, SSE (replay after
    `Last-Event-ID` or `?after=N`, then live, closed after `done`; `204` once
    a finished run's log is all read); otherwise a JSON array of a page of the
    events after `?after=N` (`?limit=`, `Wingman-Next-After`).

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        after (int | Unset): An event's `seq`: a whole number from 0
        limit (int | Unset):
        last_event_id (int | Unset): An event's `seq`: a whole number from 0

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorBody | RunEventsResponse401 | RunEventsResponse403 | RunEventsResponse503 | list[Event]]
    """

    kwargs = _get_kwargs(
        id=id,
        after=after,
        limit=limit,
        last_event_id=last_event_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    after: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    last_event_id: int | Unset = UNSET,
) -> (
    Any
    | ErrorBody
    | RunEventsResponse401
    | RunEventsResponse403
    | RunEventsResponse503
    | list[Event]
    | None
):
    """A run's events: with `Accept: text/event-stream`, SSE (replay after
    `Last-Event-ID` or `?after=N`, then live, closed after `done`; `204` once
    a finished run's log is all read); otherwise a JSON array of a page of the
    events after `?after=N` (`?limit=`, `Wingman-Next-After`).

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        after (int | Unset): An event's `seq`: a whole number from 0
        limit (int | Unset):
        last_event_id (int | Unset): An event's `seq`: a whole number from 0

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorBody | RunEventsResponse401 | RunEventsResponse403 | RunEventsResponse503 | list[Event]
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            after=after,
            limit=limit,
            last_event_id=last_event_id,
        )
    ).parsed
