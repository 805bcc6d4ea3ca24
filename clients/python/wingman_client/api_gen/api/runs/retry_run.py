from __future__ import annotations

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.retry_accepted import RetryAccepted
from ...models.retry_body import RetryBody
from ...models.retry_run_response_401 import RetryRunResponse401
from ...models.retry_run_response_403 import RetryRunResponse403
from ...models.retry_run_response_413 import RetryRunResponse413
from ...models.retry_run_response_415 import RetryRunResponse415
from ...models.retry_run_response_503 import RetryRunResponse503
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    body: RetryBody | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/runs/{id}/retry".format(
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
    | RetryAccepted
    | RetryRunResponse401
    | RetryRunResponse403
    | RetryRunResponse413
    | RetryRunResponse415
    | RetryRunResponse503
    | None
):
    if response.status_code == 202:
        response_202 = RetryAccepted.from_dict(response.json())

        return response_202

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = RetryRunResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = RetryRunResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = ErrorBody.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = RetryRunResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = RetryRunResponse415.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = ErrorBody.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = ErrorBody.from_dict(response.json())

        return response_429

    if response.status_code == 503:
        response_503 = RetryRunResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ErrorBody
    | RetryAccepted
    | RetryRunResponse401
    | RetryRunResponse403
    | RetryRunResponse413
    | RetryRunResponse415
    | RetryRunResponse503
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
    body: RetryBody | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[
    ErrorBody
    | RetryAccepted
    | RetryRunResponse401
    | RetryRunResponse403
    | RetryRunResponse413
    | RetryRunResponse415
    | RetryRunResponse503
]:
    """Retries a failed, cancelled or interrupted message: a new run of the
    same message in the same session, with the agent as it is now, whose
    steps before `from_step` are the original's (no provider or tool call is
    made for them; its log shows each as `step_reused`). When the original's
    messages are the last of the session's history, they are set aside as a
    branch first, so that they are not in it twice.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        idempotency_key (str | Unset): 1 to 255 visible ASCII characters
        body (RetryBody | Unset): Where a retry starts (an empty body is fine).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | RetryAccepted | RetryRunResponse401 | RetryRunResponse403 | RetryRunResponse413 | RetryRunResponse415 | RetryRunResponse503]
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
    body: RetryBody | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> (
    ErrorBody
    | RetryAccepted
    | RetryRunResponse401
    | RetryRunResponse403
    | RetryRunResponse413
    | RetryRunResponse415
    | RetryRunResponse503
    | None
):
    """Retries a failed, cancelled or interrupted message: a new run of the
    same message in the same session, with the agent as it is now, whose
    steps before `from_step` are the original's (no provider or tool call is
    made for them; its log shows each as `step_reused`). When the original's
    messages are the last of the session's history, they are set aside as a
    branch first, so that they are not in it twice.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        idempotency_key (str | Unset): 1 to 255 visible ASCII characters
        body (RetryBody | Unset): Where a retry starts (an empty body is fine).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | RetryAccepted | RetryRunResponse401 | RetryRunResponse403 | RetryRunResponse413 | RetryRunResponse415 | RetryRunResponse503
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
    body: RetryBody | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[
    ErrorBody
    | RetryAccepted
    | RetryRunResponse401
    | RetryRunResponse403
    | RetryRunResponse413
    | RetryRunResponse415
    | RetryRunResponse503
]:
    """Retries a failed, cancelled or interrupted message: a new run of the
    same message in the same session, with the agent as it is now, whose
    steps before `from_step` are the original's (no provider or tool call is
    made for them; its log shows each as `step_reused`). When the original's
    messages are the last of the session's history, they are set aside as a
    branch first, so that they are not in it twice.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        idempotency_key (str | Unset): 1 to 255 visible ASCII characters
        body (RetryBody | Unset): Where a retry starts (an empty body is fine).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | RetryAccepted | RetryRunResponse401 | RetryRunResponse403 | RetryRunResponse413 | RetryRunResponse415 | RetryRunResponse503]
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
    body: RetryBody | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> (
    ErrorBody
    | RetryAccepted
    | RetryRunResponse401
    | RetryRunResponse403
    | RetryRunResponse413
    | RetryRunResponse415
    | RetryRunResponse503
    | None
):
    """Retries a failed, cancelled or interrupted message: a new run of the
    same message in the same session, with the agent as it is now, whose
    steps before `from_step` are the original's (no provider or tool call is
    made for them; its log shows each as `step_reused`). When the original's
    messages are the last of the session's history, they are set aside as a
    branch first, so that they are not in it twice.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        idempotency_key (str | Unset): 1 to 255 visible ASCII characters
        body (RetryBody | Unset): Where a retry starts (an empty body is fine).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | RetryAccepted | RetryRunResponse401 | RetryRunResponse403 | RetryRunResponse413 | RetryRunResponse415 | RetryRunResponse503
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
