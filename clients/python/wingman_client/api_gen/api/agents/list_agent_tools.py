from __future__ import annotations

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.list_agent_tools_response_401 import ListAgentToolsResponse401
from ...models.list_agent_tools_response_403 import ListAgentToolsResponse403
from ...models.list_agent_tools_response_503 import ListAgentToolsResponse503
from ...models.offered_tools import OfferedTools
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    session_id: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["session_id"] = session_id

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/agents/{id}/tools".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ErrorBody
    | ListAgentToolsResponse401
    | ListAgentToolsResponse403
    | ListAgentToolsResponse503
    | OfferedTools
    | None
):
    if response.status_code == 200:
        response_200 = OfferedTools.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ListAgentToolsResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ListAgentToolsResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = ErrorBody.from_dict(response.json())

        return response_409

    if response.status_code == 503:
        response_503 = ListAgentToolsResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ErrorBody
    | ListAgentToolsResponse401
    | ListAgentToolsResponse403
    | ListAgentToolsResponse503
    | OfferedTools
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
    session_id: str | Unset = UNSET,
) -> Response[
    ErrorBody
    | ListAgentToolsResponse401
    | ListAgentToolsResponse403
    | ListAgentToolsResponse503
    | OfferedTools
]:
    """The tools the agent's runs are offered, in the order the model sees
    them; with `session_id`, the session's additions too. MCP servers are
    asked for their tools through the embedded workers' connections; an
    API-only server answers what a worker last listed (`listings` says
    when), or says that no worker has listed them yet.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        session_id (str | Unset): An ID the server gave: a ULID (26 characters of Crockford's base
            32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | ListAgentToolsResponse401 | ListAgentToolsResponse403 | ListAgentToolsResponse503 | OfferedTools]
    """

    kwargs = _get_kwargs(
        id=id,
        session_id=session_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    session_id: str | Unset = UNSET,
) -> (
    ErrorBody
    | ListAgentToolsResponse401
    | ListAgentToolsResponse403
    | ListAgentToolsResponse503
    | OfferedTools
    | None
):
    """The tools the agent's runs are offered, in the order the model sees
    them; with `session_id`, the session's additions too. MCP servers are
    asked for their tools through the embedded workers' connections; an
    API-only server answers what a worker last listed (`listings` says
    when), or says that no worker has listed them yet.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        session_id (str | Unset): An ID the server gave: a ULID (26 characters of Crockford's base
            32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | ListAgentToolsResponse401 | ListAgentToolsResponse403 | ListAgentToolsResponse503 | OfferedTools
    """

    return sync_detailed(
        id=id,
        client=client,
        session_id=session_id,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    session_id: str | Unset = UNSET,
) -> Response[
    ErrorBody
    | ListAgentToolsResponse401
    | ListAgentToolsResponse403
    | ListAgentToolsResponse503
    | OfferedTools
]:
    """The tools the agent's runs are offered, in the order the model sees
    them; with `session_id`, the session's additions too. MCP servers are
    asked for their tools through the embedded workers' connections; an
    API-only server answers what a worker last listed (`listings` says
    when), or says that no worker has listed them yet.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        session_id (str | Unset): An ID the server gave: a ULID (26 characters of Crockford's base
            32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | ListAgentToolsResponse401 | ListAgentToolsResponse403 | ListAgentToolsResponse503 | OfferedTools]
    """

    kwargs = _get_kwargs(
        id=id,
        session_id=session_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    session_id: str | Unset = UNSET,
) -> (
    ErrorBody
    | ListAgentToolsResponse401
    | ListAgentToolsResponse403
    | ListAgentToolsResponse503
    | OfferedTools
    | None
):
    """The tools the agent's runs are offered, in the order the model sees
    them; with `session_id`, the session's additions too. MCP servers are
    asked for their tools through the embedded workers' connections; an
    API-only server answers what a worker last listed (`listings` says
    when), or says that no worker has listed them yet.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        session_id (str | Unset): An ID the server gave: a ULID (26 characters of Crockford's base
            32)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | ListAgentToolsResponse401 | ListAgentToolsResponse403 | ListAgentToolsResponse503 | OfferedTools
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            session_id=session_id,
        )
    ).parsed
