from __future__ import annotations

from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.agent import Agent
from ...models.create_agent_response_401 import CreateAgentResponse401
from ...models.create_agent_response_403 import CreateAgentResponse403
from ...models.create_agent_response_413 import CreateAgentResponse413
from ...models.create_agent_response_415 import CreateAgentResponse415
from ...models.create_agent_response_503 import CreateAgentResponse503
from ...models.error_body import ErrorBody
from ...models.new_agent import NewAgent
from ...types import Response


def _get_kwargs(
    *,
    body: NewAgent,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/agents",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    Agent
    | CreateAgentResponse401
    | CreateAgentResponse403
    | CreateAgentResponse413
    | CreateAgentResponse415
    | CreateAgentResponse503
    | ErrorBody
    | None
):
    if response.status_code == 201:
        response_201 = Agent.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = CreateAgentResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = CreateAgentResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 413:
        response_413 = CreateAgentResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = CreateAgentResponse415.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = ErrorBody.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = CreateAgentResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    Agent
    | CreateAgentResponse401
    | CreateAgentResponse403
    | CreateAgentResponse413
    | CreateAgentResponse415
    | CreateAgentResponse503
    | ErrorBody
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
    body: NewAgent,
) -> Response[
    Agent
    | CreateAgentResponse401
    | CreateAgentResponse403
    | CreateAgentResponse413
    | CreateAgentResponse415
    | CreateAgentResponse503
    | ErrorBody
]:
    """Creates an agent.

    Args:
        body (NewAgent):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Agent | CreateAgentResponse401 | CreateAgentResponse403 | CreateAgentResponse413 | CreateAgentResponse415 | CreateAgentResponse503 | ErrorBody]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: NewAgent,
) -> (
    Agent
    | CreateAgentResponse401
    | CreateAgentResponse403
    | CreateAgentResponse413
    | CreateAgentResponse415
    | CreateAgentResponse503
    | ErrorBody
    | None
):
    """Creates an agent.

    Args:
        body (NewAgent):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Agent | CreateAgentResponse401 | CreateAgentResponse403 | CreateAgentResponse413 | CreateAgentResponse415 | CreateAgentResponse503 | ErrorBody
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: NewAgent,
) -> Response[
    Agent
    | CreateAgentResponse401
    | CreateAgentResponse403
    | CreateAgentResponse413
    | CreateAgentResponse415
    | CreateAgentResponse503
    | ErrorBody
]:
    """Creates an agent.

    Args:
        body (NewAgent):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Agent | CreateAgentResponse401 | CreateAgentResponse403 | CreateAgentResponse413 | CreateAgentResponse415 | CreateAgentResponse503 | ErrorBody]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: NewAgent,
) -> (
    Agent
    | CreateAgentResponse401
    | CreateAgentResponse403
    | CreateAgentResponse413
    | CreateAgentResponse415
    | CreateAgentResponse503
    | ErrorBody
    | None
):
    """Creates an agent.

    Args:
        body (NewAgent):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Agent | CreateAgentResponse401 | CreateAgentResponse403 | CreateAgentResponse413 | CreateAgentResponse415 | CreateAgentResponse503 | ErrorBody
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
