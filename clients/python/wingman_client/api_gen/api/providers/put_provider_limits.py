from __future__ import annotations

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.budget_view import BudgetView
from ...models.error_body import ErrorBody
from ...models.provider_limits import ProviderLimits
from ...models.put_provider_limits_response_401 import PutProviderLimitsResponse401
from ...models.put_provider_limits_response_403 import PutProviderLimitsResponse403
from ...models.put_provider_limits_response_413 import PutProviderLimitsResponse413
from ...models.put_provider_limits_response_415 import PutProviderLimitsResponse415
from ...models.put_provider_limits_response_503 import PutProviderLimitsResponse503
from ...types import Response


def _get_kwargs(
    credential: str,
    *,
    body: ProviderLimits,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/provider/limits/{credential}".format(
            credential=quote(str(credential), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    BudgetView
    | ErrorBody
    | PutProviderLimitsResponse401
    | PutProviderLimitsResponse403
    | PutProviderLimitsResponse413
    | PutProviderLimitsResponse415
    | PutProviderLimitsResponse503
    | None
):
    if response.status_code == 200:
        response_200 = BudgetView.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = PutProviderLimitsResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = PutProviderLimitsResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 413:
        response_413 = PutProviderLimitsResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = PutProviderLimitsResponse415.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = ErrorBody.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = PutProviderLimitsResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    BudgetView
    | ErrorBody
    | PutProviderLimitsResponse401
    | PutProviderLimitsResponse403
    | PutProviderLimitsResponse413
    | PutProviderLimitsResponse415
    | PutProviderLimitsResponse503
]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    credential: str,
    *,
    client: AuthenticatedClient | Client,
    body: ProviderLimits,
) -> Response[
    BudgetView
    | ErrorBody
    | PutProviderLimitsResponse401
    | PutProviderLimitsResponse403
    | PutProviderLimitsResponse413
    | PutProviderLimitsResponse415
    | PutProviderLimitsResponse503
]:
    """Declares a credential's limits (replacing what was declared): requests
    and tokens a minute, requests in flight at once. Every worker shares
    them from the next inference on.

    Args:
        credential (str): A provider that takes keys, alone or with a label: `openai` or
            `openai:work`
        body (ProviderLimits): A credential's or an agent's declared limits: requests and tokens a
            minute, and requests in flight at once. Every worker on every host
            shares them through one budget in the database.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BudgetView | ErrorBody | PutProviderLimitsResponse401 | PutProviderLimitsResponse403 | PutProviderLimitsResponse413 | PutProviderLimitsResponse415 | PutProviderLimitsResponse503]
    """

    kwargs = _get_kwargs(
        credential=credential,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    credential: str,
    *,
    client: AuthenticatedClient | Client,
    body: ProviderLimits,
) -> (
    BudgetView
    | ErrorBody
    | PutProviderLimitsResponse401
    | PutProviderLimitsResponse403
    | PutProviderLimitsResponse413
    | PutProviderLimitsResponse415
    | PutProviderLimitsResponse503
    | None
):
    """Declares a credential's limits (replacing what was declared): requests
    and tokens a minute, requests in flight at once. Every worker shares
    them from the next inference on.

    Args:
        credential (str): A provider that takes keys, alone or with a label: `openai` or
            `openai:work`
        body (ProviderLimits): A credential's or an agent's declared limits: requests and tokens a
            minute, and requests in flight at once. Every worker on every host
            shares them through one budget in the database.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BudgetView | ErrorBody | PutProviderLimitsResponse401 | PutProviderLimitsResponse403 | PutProviderLimitsResponse413 | PutProviderLimitsResponse415 | PutProviderLimitsResponse503
    """

    return sync_detailed(
        credential=credential,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    credential: str,
    *,
    client: AuthenticatedClient | Client,
    body: ProviderLimits,
) -> Response[
    BudgetView
    | ErrorBody
    | PutProviderLimitsResponse401
    | PutProviderLimitsResponse403
    | PutProviderLimitsResponse413
    | PutProviderLimitsResponse415
    | PutProviderLimitsResponse503
]:
    """Declares a credential's limits (replacing what was declared): requests
    and tokens a minute, requests in flight at once. Every worker shares
    them from the next inference on.

    Args:
        credential (str): A provider that takes keys, alone or with a label: `openai` or
            `openai:work`
        body (ProviderLimits): A credential's or an agent's declared limits: requests and tokens a
            minute, and requests in flight at once. Every worker on every host
            shares them through one budget in the database.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BudgetView | ErrorBody | PutProviderLimitsResponse401 | PutProviderLimitsResponse403 | PutProviderLimitsResponse413 | PutProviderLimitsResponse415 | PutProviderLimitsResponse503]
    """

    kwargs = _get_kwargs(
        credential=credential,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    credential: str,
    *,
    client: AuthenticatedClient | Client,
    body: ProviderLimits,
) -> (
    BudgetView
    | ErrorBody
    | PutProviderLimitsResponse401
    | PutProviderLimitsResponse403
    | PutProviderLimitsResponse413
    | PutProviderLimitsResponse415
    | PutProviderLimitsResponse503
    | None
):
    """Declares a credential's limits (replacing what was declared): requests
    and tokens a minute, requests in flight at once. Every worker shares
    them from the next inference on.

    Args:
        credential (str): A provider that takes keys, alone or with a label: `openai` or
            `openai:work`
        body (ProviderLimits): A credential's or an agent's declared limits: requests and tokens a
            minute, and requests in flight at once. Every worker on every host
            shares them through one budget in the database.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BudgetView | ErrorBody | PutProviderLimitsResponse401 | PutProviderLimitsResponse403 | PutProviderLimitsResponse413 | PutProviderLimitsResponse415 | PutProviderLimitsResponse503
    """

    return (
        await asyncio_detailed(
            credential=credential,
            client=client,
            body=body,
        )
    ).parsed
