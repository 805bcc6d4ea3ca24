from __future__ import annotations

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.rewind_body import RewindBody
from ...models.rewind_session_response_400 import RewindSessionResponse400
from ...models.rewind_session_response_401 import RewindSessionResponse401
from ...models.rewind_session_response_403 import RewindSessionResponse403
from ...models.rewind_session_response_413 import RewindSessionResponse413
from ...models.rewind_session_response_415 import RewindSessionResponse415
from ...models.rewind_session_response_503 import RewindSessionResponse503
from ...models.rewound import Rewound
from ...types import Response


def _get_kwargs(
    id: str,
    *,
    body: RewindBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/sessions/{id}/rewind".format(
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
    | RewindSessionResponse400
    | RewindSessionResponse401
    | RewindSessionResponse403
    | RewindSessionResponse413
    | RewindSessionResponse415
    | RewindSessionResponse503
    | Rewound
    | None
):
    if response.status_code == 200:
        response_200 = Rewound.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = RewindSessionResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = RewindSessionResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = RewindSessionResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = ErrorBody.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = RewindSessionResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = RewindSessionResponse415.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = ErrorBody.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = RewindSessionResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ErrorBody
    | RewindSessionResponse400
    | RewindSessionResponse401
    | RewindSessionResponse403
    | RewindSessionResponse413
    | RewindSessionResponse415
    | RewindSessionResponse503
    | Rewound
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
    body: RewindBody,
) -> Response[
    ErrorBody
    | RewindSessionResponse400
    | RewindSessionResponse401
    | RewindSessionResponse403
    | RewindSessionResponse413
    | RewindSessionResponse415
    | RewindSessionResponse503
    | Rewound
]:
    """Rewinds a session to the end of run `to`: the history after it is set
    aside as a branch the session lists (kept, never deleted), and the next
    message continues from there. Refused while the session has a queued,
    running or waiting run.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        body (RewindBody): Where a rewind goes back to.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | RewindSessionResponse400 | RewindSessionResponse401 | RewindSessionResponse403 | RewindSessionResponse413 | RewindSessionResponse415 | RewindSessionResponse503 | Rewound]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: RewindBody,
) -> (
    ErrorBody
    | RewindSessionResponse400
    | RewindSessionResponse401
    | RewindSessionResponse403
    | RewindSessionResponse413
    | RewindSessionResponse415
    | RewindSessionResponse503
    | Rewound
    | None
):
    """Rewinds a session to the end of run `to`: the history after it is set
    aside as a branch the session lists (kept, never deleted), and the next
    message continues from there. Refused while the session has a queued,
    running or waiting run.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        body (RewindBody): Where a rewind goes back to.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | RewindSessionResponse400 | RewindSessionResponse401 | RewindSessionResponse403 | RewindSessionResponse413 | RewindSessionResponse415 | RewindSessionResponse503 | Rewound
    """

    return sync_detailed(
        id=id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: RewindBody,
) -> Response[
    ErrorBody
    | RewindSessionResponse400
    | RewindSessionResponse401
    | RewindSessionResponse403
    | RewindSessionResponse413
    | RewindSessionResponse415
    | RewindSessionResponse503
    | Rewound
]:
    """Rewinds a session to the end of run `to`: the history after it is set
    aside as a branch the session lists (kept, never deleted), and the next
    message continues from there. Refused while the session has a queued,
    running or waiting run.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        body (RewindBody): Where a rewind goes back to.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | RewindSessionResponse400 | RewindSessionResponse401 | RewindSessionResponse403 | RewindSessionResponse413 | RewindSessionResponse415 | RewindSessionResponse503 | Rewound]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: RewindBody,
) -> (
    ErrorBody
    | RewindSessionResponse400
    | RewindSessionResponse401
    | RewindSessionResponse403
    | RewindSessionResponse413
    | RewindSessionResponse415
    | RewindSessionResponse503
    | Rewound
    | None
):
    """Rewinds a session to the end of run `to`: the history after it is set
    aside as a branch the session lists (kept, never deleted), and the next
    message continues from there. Refused while the session has a queued,
    running or waiting run.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        body (RewindBody): Where a rewind goes back to.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | RewindSessionResponse400 | RewindSessionResponse401 | RewindSessionResponse403 | RewindSessionResponse413 | RewindSessionResponse415 | RewindSessionResponse503 | Rewound
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
        )
    ).parsed
