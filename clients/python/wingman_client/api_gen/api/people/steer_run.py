from __future__ import annotations

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.run import Run
from ...models.steer_body import SteerBody
from ...models.steer_run_response_401 import SteerRunResponse401
from ...models.steer_run_response_403 import SteerRunResponse403
from ...models.steer_run_response_413 import SteerRunResponse413
from ...models.steer_run_response_415 import SteerRunResponse415
from ...models.steer_run_response_422 import SteerRunResponse422
from ...models.steer_run_response_503 import SteerRunResponse503
from ...types import Response


def _get_kwargs(
    id: str,
    *,
    body: SteerBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/runs/{id}/steer".format(
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
    | Run
    | SteerRunResponse401
    | SteerRunResponse403
    | SteerRunResponse413
    | SteerRunResponse415
    | SteerRunResponse422
    | SteerRunResponse503
    | None
):
    if response.status_code == 202:
        response_202 = Run.from_dict(response.json())

        return response_202

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = SteerRunResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = SteerRunResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = ErrorBody.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = SteerRunResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = SteerRunResponse415.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = SteerRunResponse422.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = SteerRunResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ErrorBody
    | Run
    | SteerRunResponse401
    | SteerRunResponse403
    | SteerRunResponse413
    | SteerRunResponse415
    | SteerRunResponse422
    | SteerRunResponse503
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
    body: SteerBody,
) -> Response[
    ErrorBody
    | Run
    | SteerRunResponse401
    | SteerRunResponse403
    | SteerRunResponse413
    | SteerRunResponse415
    | SteerRunResponse422
    | SteerRunResponse503
]:
    """Leaves a message for the run: a running run takes it in at its next step
    boundary, a queued one before its first step, a waiting one at once.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        body (SteerBody): A message for a run to take in at its next step boundary.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | Run | SteerRunResponse401 | SteerRunResponse403 | SteerRunResponse413 | SteerRunResponse415 | SteerRunResponse422 | SteerRunResponse503]
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
    body: SteerBody,
) -> (
    ErrorBody
    | Run
    | SteerRunResponse401
    | SteerRunResponse403
    | SteerRunResponse413
    | SteerRunResponse415
    | SteerRunResponse422
    | SteerRunResponse503
    | None
):
    """Leaves a message for the run: a running run takes it in at its next step
    boundary, a queued one before its first step, a waiting one at once.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        body (SteerBody): A message for a run to take in at its next step boundary.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | Run | SteerRunResponse401 | SteerRunResponse403 | SteerRunResponse413 | SteerRunResponse415 | SteerRunResponse422 | SteerRunResponse503
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
    body: SteerBody,
) -> Response[
    ErrorBody
    | Run
    | SteerRunResponse401
    | SteerRunResponse403
    | SteerRunResponse413
    | SteerRunResponse415
    | SteerRunResponse422
    | SteerRunResponse503
]:
    """Leaves a message for the run: a running run takes it in at its next step
    boundary, a queued one before its first step, a waiting one at once.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        body (SteerBody): A message for a run to take in at its next step boundary.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | Run | SteerRunResponse401 | SteerRunResponse403 | SteerRunResponse413 | SteerRunResponse415 | SteerRunResponse422 | SteerRunResponse503]
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
    body: SteerBody,
) -> (
    ErrorBody
    | Run
    | SteerRunResponse401
    | SteerRunResponse403
    | SteerRunResponse413
    | SteerRunResponse415
    | SteerRunResponse422
    | SteerRunResponse503
    | None
):
    """Leaves a message for the run: a running run takes it in at its next step
    boundary, a queued one before its first step, a waiting one at once.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        body (SteerBody): A message for a run to take in at its next step boundary.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | Run | SteerRunResponse401 | SteerRunResponse403 | SteerRunResponse413 | SteerRunResponse415 | SteerRunResponse422 | SteerRunResponse503
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
        )
    ).parsed
