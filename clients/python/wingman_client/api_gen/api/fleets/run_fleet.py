from __future__ import annotations

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.fleet_run_accepted import FleetRunAccepted
from ...models.run_body import RunBody
from ...models.run_fleet_response_401 import RunFleetResponse401
from ...models.run_fleet_response_403 import RunFleetResponse403
from ...models.run_fleet_response_415 import RunFleetResponse415
from ...models.run_fleet_response_503 import RunFleetResponse503
from ...models.task_result import TaskResult
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    body: RunBody,
    wait: bool | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    params: dict[str, Any] = {}

    params["wait"] = wait

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/fleets/{id}/run".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ErrorBody
    | FleetRunAccepted
    | RunFleetResponse401
    | RunFleetResponse403
    | RunFleetResponse415
    | RunFleetResponse503
    | list[TaskResult]
    | None
):
    if response.status_code == 200:
        response_200 = []
        _response_200 = response.json()
        for response_200_item_data in _response_200:
            response_200_item = TaskResult.from_dict(response_200_item_data)

            response_200.append(response_200_item)

        return response_200

    if response.status_code == 202:
        response_202 = FleetRunAccepted.from_dict(response.json())

        return response_202

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = RunFleetResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = RunFleetResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = ErrorBody.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = RunFleetResponse415.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = ErrorBody.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = ErrorBody.from_dict(response.json())

        return response_429

    if response.status_code == 503:
        response_503 = RunFleetResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ErrorBody
    | FleetRunAccepted
    | RunFleetResponse401
    | RunFleetResponse403
    | RunFleetResponse415
    | RunFleetResponse503
    | list[TaskResult]
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
    wait: bool | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[
    ErrorBody
    | FleetRunAccepted
    | RunFleetResponse401
    | RunFleetResponse403
    | RunFleetResponse415
    | RunFleetResponse503
    | list[TaskResult]
]:
    """`202 {"fleet_run_id", "status", …}`, or with `?wait=true` the original
    API's answer: every task's result, in task order.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        wait (bool | Unset):
        idempotency_key (str | Unset): 1 to 255 visible ASCII characters
        body (RunBody): The body of a fleet run: the original API's.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | FleetRunAccepted | RunFleetResponse401 | RunFleetResponse403 | RunFleetResponse415 | RunFleetResponse503 | list[TaskResult]]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
        wait=wait,
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
    wait: bool | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> (
    ErrorBody
    | FleetRunAccepted
    | RunFleetResponse401
    | RunFleetResponse403
    | RunFleetResponse415
    | RunFleetResponse503
    | list[TaskResult]
    | None
):
    """`202 {"fleet_run_id", "status", …}`, or with `?wait=true` the original
    API's answer: every task's result, in task order.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        wait (bool | Unset):
        idempotency_key (str | Unset): 1 to 255 visible ASCII characters
        body (RunBody): The body of a fleet run: the original API's.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | FleetRunAccepted | RunFleetResponse401 | RunFleetResponse403 | RunFleetResponse415 | RunFleetResponse503 | list[TaskResult]
    """

    return sync_detailed(
        id=id,
        client=client,
        body=body,
        wait=wait,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: RunBody,
    wait: bool | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[
    ErrorBody
    | FleetRunAccepted
    | RunFleetResponse401
    | RunFleetResponse403
    | RunFleetResponse415
    | RunFleetResponse503
    | list[TaskResult]
]:
    """`202 {"fleet_run_id", "status", …}`, or with `?wait=true` the original
    API's answer: every task's result, in task order.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        wait (bool | Unset):
        idempotency_key (str | Unset): 1 to 255 visible ASCII characters
        body (RunBody): The body of a fleet run: the original API's.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | FleetRunAccepted | RunFleetResponse401 | RunFleetResponse403 | RunFleetResponse415 | RunFleetResponse503 | list[TaskResult]]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
        wait=wait,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: RunBody,
    wait: bool | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> (
    ErrorBody
    | FleetRunAccepted
    | RunFleetResponse401
    | RunFleetResponse403
    | RunFleetResponse415
    | RunFleetResponse503
    | list[TaskResult]
    | None
):
    """`202 {"fleet_run_id", "status", …}`, or with `?wait=true` the original
    API's answer: every task's result, in task order.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        wait (bool | Unset):
        idempotency_key (str | Unset): 1 to 255 visible ASCII characters
        body (RunBody): The body of a fleet run: the original API's.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | FleetRunAccepted | RunFleetResponse401 | RunFleetResponse403 | RunFleetResponse415 | RunFleetResponse503 | list[TaskResult]
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
            wait=wait,
            idempotency_key=idempotency_key,
        )
    ).parsed
