from __future__ import annotations

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.owner_view import OwnerView
from ...models.put_owner_response_401 import PutOwnerResponse401
from ...models.put_owner_response_403 import PutOwnerResponse403
from ...models.put_owner_response_413 import PutOwnerResponse413
from ...models.put_owner_response_415 import PutOwnerResponse415
from ...models.put_owner_response_503 import PutOwnerResponse503
from ...models.quota import Quota
from ...types import UNSET, Response, Unset


def _get_kwargs(
    owner: str,
    *,
    body: Quota | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/owners/{owner}".format(
            owner=quote(str(owner), safe=""),
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
    | OwnerView
    | PutOwnerResponse401
    | PutOwnerResponse403
    | PutOwnerResponse413
    | PutOwnerResponse415
    | PutOwnerResponse503
    | None
):
    if response.status_code == 200:
        response_200 = OwnerView.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = PutOwnerResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = PutOwnerResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 413:
        response_413 = PutOwnerResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = PutOwnerResponse415.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = ErrorBody.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = PutOwnerResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ErrorBody
    | OwnerView
    | PutOwnerResponse401
    | PutOwnerResponse403
    | PutOwnerResponse413
    | PutOwnerResponse415
    | PutOwnerResponse503
]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    owner: str,
    *,
    client: AuthenticatedClient | Client,
    body: Quota | Unset = UNSET,
) -> Response[
    ErrorBody
    | OwnerView
    | PutOwnerResponse401
    | PutOwnerResponse403
    | PutOwnerResponse413
    | PutOwnerResponse415
    | PutOwnerResponse503
]:
    """Sets an owner's quota, as a whole: a field left out is no limit, and
    `{}` removes the quota. Every server and worker holds to it within a
    second. Runs already queued stay queued; a daily budget applies from
    each run's next inference.

    Args:
        owner (str):
        body (Quota | Unset): What an owner may use. A field left out is no limit.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | OwnerView | PutOwnerResponse401 | PutOwnerResponse403 | PutOwnerResponse413 | PutOwnerResponse415 | PutOwnerResponse503]
    """

    kwargs = _get_kwargs(
        owner=owner,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    owner: str,
    *,
    client: AuthenticatedClient | Client,
    body: Quota | Unset = UNSET,
) -> (
    ErrorBody
    | OwnerView
    | PutOwnerResponse401
    | PutOwnerResponse403
    | PutOwnerResponse413
    | PutOwnerResponse415
    | PutOwnerResponse503
    | None
):
    """Sets an owner's quota, as a whole: a field left out is no limit, and
    `{}` removes the quota. Every server and worker holds to it within a
    second. Runs already queued stay queued; a daily budget applies from
    each run's next inference.

    Args:
        owner (str):
        body (Quota | Unset): What an owner may use. A field left out is no limit.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | OwnerView | PutOwnerResponse401 | PutOwnerResponse403 | PutOwnerResponse413 | PutOwnerResponse415 | PutOwnerResponse503
    """

    return sync_detailed(
        owner=owner,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    owner: str,
    *,
    client: AuthenticatedClient | Client,
    body: Quota | Unset = UNSET,
) -> Response[
    ErrorBody
    | OwnerView
    | PutOwnerResponse401
    | PutOwnerResponse403
    | PutOwnerResponse413
    | PutOwnerResponse415
    | PutOwnerResponse503
]:
    """Sets an owner's quota, as a whole: a field left out is no limit, and
    `{}` removes the quota. Every server and worker holds to it within a
    second. Runs already queued stay queued; a daily budget applies from
    each run's next inference.

    Args:
        owner (str):
        body (Quota | Unset): What an owner may use. A field left out is no limit.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | OwnerView | PutOwnerResponse401 | PutOwnerResponse403 | PutOwnerResponse413 | PutOwnerResponse415 | PutOwnerResponse503]
    """

    kwargs = _get_kwargs(
        owner=owner,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    owner: str,
    *,
    client: AuthenticatedClient | Client,
    body: Quota | Unset = UNSET,
) -> (
    ErrorBody
    | OwnerView
    | PutOwnerResponse401
    | PutOwnerResponse403
    | PutOwnerResponse413
    | PutOwnerResponse415
    | PutOwnerResponse503
    | None
):
    """Sets an owner's quota, as a whole: a field left out is no limit, and
    `{}` removes the quota. Every server and worker holds to it within a
    second. Runs already queued stay queued; a daily budget applies from
    each run's next inference.

    Args:
        owner (str):
        body (Quota | Unset): What an owner may use. A field left out is no limit.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | OwnerView | PutOwnerResponse401 | PutOwnerResponse403 | PutOwnerResponse413 | PutOwnerResponse415 | PutOwnerResponse503
    """

    return (
        await asyncio_detailed(
            owner=owner,
            client=client,
            body=body,
        )
    ).parsed
