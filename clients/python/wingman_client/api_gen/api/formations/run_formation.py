from __future__ import annotations

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.formation_run_accepted import FormationRunAccepted
from ...models.formation_run_body import FormationRunBody
from ...models.formation_run_result import FormationRunResult
from ...models.run_formation_response_401 import RunFormationResponse401
from ...models.run_formation_response_403 import RunFormationResponse403
from ...models.run_formation_response_413 import RunFormationResponse413
from ...models.run_formation_response_415 import RunFormationResponse415
from ...models.run_formation_response_503 import RunFormationResponse503
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    body: FormationRunBody,
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
        "url": "/formations/{id}/run".format(
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
    | FormationRunAccepted
    | FormationRunResult
    | RunFormationResponse401
    | RunFormationResponse403
    | RunFormationResponse413
    | RunFormationResponse415
    | RunFormationResponse503
    | None
):
    if response.status_code == 200:
        response_200 = FormationRunResult.from_dict(response.json())

        return response_200

    if response.status_code == 202:
        response_202 = FormationRunAccepted.from_dict(response.json())

        return response_202

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = RunFormationResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = RunFormationResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = RunFormationResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = RunFormationResponse415.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = ErrorBody.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = ErrorBody.from_dict(response.json())

        return response_429

    if response.status_code == 503:
        response_503 = RunFormationResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ErrorBody
    | FormationRunAccepted
    | FormationRunResult
    | RunFormationResponse401
    | RunFormationResponse403
    | RunFormationResponse413
    | RunFormationResponse415
    | RunFormationResponse503
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
    body: FormationRunBody,
    wait: bool | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[
    ErrorBody
    | FormationRunAccepted
    | FormationRunResult
    | RunFormationResponse401
    | RunFormationResponse403
    | RunFormationResponse413
    | RunFormationResponse415
    | RunFormationResponse503
]:
    """Starts a run of the formation: its entry nodes start with it, each
    later node when its inputs are stored.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        wait (bool | Unset):
        idempotency_key (str | Unset): 1 to 255 visible ASCII characters
        body (FormationRunBody): The body of `POST /formations/{id}/run`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | FormationRunAccepted | FormationRunResult | RunFormationResponse401 | RunFormationResponse403 | RunFormationResponse413 | RunFormationResponse415 | RunFormationResponse503]
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
    body: FormationRunBody,
    wait: bool | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> (
    ErrorBody
    | FormationRunAccepted
    | FormationRunResult
    | RunFormationResponse401
    | RunFormationResponse403
    | RunFormationResponse413
    | RunFormationResponse415
    | RunFormationResponse503
    | None
):
    """Starts a run of the formation: its entry nodes start with it, each
    later node when its inputs are stored.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        wait (bool | Unset):
        idempotency_key (str | Unset): 1 to 255 visible ASCII characters
        body (FormationRunBody): The body of `POST /formations/{id}/run`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | FormationRunAccepted | FormationRunResult | RunFormationResponse401 | RunFormationResponse403 | RunFormationResponse413 | RunFormationResponse415 | RunFormationResponse503
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
    body: FormationRunBody,
    wait: bool | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[
    ErrorBody
    | FormationRunAccepted
    | FormationRunResult
    | RunFormationResponse401
    | RunFormationResponse403
    | RunFormationResponse413
    | RunFormationResponse415
    | RunFormationResponse503
]:
    """Starts a run of the formation: its entry nodes start with it, each
    later node when its inputs are stored.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        wait (bool | Unset):
        idempotency_key (str | Unset): 1 to 255 visible ASCII characters
        body (FormationRunBody): The body of `POST /formations/{id}/run`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | FormationRunAccepted | FormationRunResult | RunFormationResponse401 | RunFormationResponse403 | RunFormationResponse413 | RunFormationResponse415 | RunFormationResponse503]
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
    body: FormationRunBody,
    wait: bool | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> (
    ErrorBody
    | FormationRunAccepted
    | FormationRunResult
    | RunFormationResponse401
    | RunFormationResponse403
    | RunFormationResponse413
    | RunFormationResponse415
    | RunFormationResponse503
    | None
):
    """Starts a run of the formation: its entry nodes start with it, each
    later node when its inputs are stored.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        wait (bool | Unset):
        idempotency_key (str | Unset): 1 to 255 visible ASCII characters
        body (FormationRunBody): The body of `POST /formations/{id}/run`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | FormationRunAccepted | FormationRunResult | RunFormationResponse401 | RunFormationResponse403 | RunFormationResponse413 | RunFormationResponse415 | RunFormationResponse503
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
