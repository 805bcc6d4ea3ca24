from __future__ import annotations

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.post_tool_results_response_400 import PostToolResultsResponse400
from ...models.post_tool_results_response_401 import PostToolResultsResponse401
from ...models.post_tool_results_response_403 import PostToolResultsResponse403
from ...models.post_tool_results_response_413 import PostToolResultsResponse413
from ...models.post_tool_results_response_415 import PostToolResultsResponse415
from ...models.post_tool_results_response_503 import PostToolResultsResponse503
from ...models.results_body import ResultsBody
from ...models.run import Run
from ...types import Response


def _get_kwargs(
    id: str,
    *,
    body: ResultsBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/runs/{id}/tool-results".format(
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
    | PostToolResultsResponse400
    | PostToolResultsResponse401
    | PostToolResultsResponse403
    | PostToolResultsResponse413
    | PostToolResultsResponse415
    | PostToolResultsResponse503
    | Run
    | None
):
    if response.status_code == 202:
        response_202 = Run.from_dict(response.json())

        return response_202

    if response.status_code == 400:
        response_400 = PostToolResultsResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = PostToolResultsResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = PostToolResultsResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = ErrorBody.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = PostToolResultsResponse413.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = PostToolResultsResponse415.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = ErrorBody.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = PostToolResultsResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ErrorBody
    | PostToolResultsResponse400
    | PostToolResultsResponse401
    | PostToolResultsResponse403
    | PostToolResultsResponse413
    | PostToolResultsResponse415
    | PostToolResultsResponse503
    | Run
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
    body: ResultsBody,
) -> Response[
    ErrorBody
    | PostToolResultsResponse400
    | PostToolResultsResponse401
    | PostToolResultsResponse403
    | PostToolResultsResponse413
    | PostToolResultsResponse415
    | PostToolResultsResponse503
    | Run
]:
    """Records the client's result of every client tool call the run waits on
    and queues it again. Each output is capped like any tool's.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        body (ResultsBody): A result for every call the run waits on.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PostToolResultsResponse400 | PostToolResultsResponse401 | PostToolResultsResponse403 | PostToolResultsResponse413 | PostToolResultsResponse415 | PostToolResultsResponse503 | Run]
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
    body: ResultsBody,
) -> (
    ErrorBody
    | PostToolResultsResponse400
    | PostToolResultsResponse401
    | PostToolResultsResponse403
    | PostToolResultsResponse413
    | PostToolResultsResponse415
    | PostToolResultsResponse503
    | Run
    | None
):
    """Records the client's result of every client tool call the run waits on
    and queues it again. Each output is capped like any tool's.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        body (ResultsBody): A result for every call the run waits on.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PostToolResultsResponse400 | PostToolResultsResponse401 | PostToolResultsResponse403 | PostToolResultsResponse413 | PostToolResultsResponse415 | PostToolResultsResponse503 | Run
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
    body: ResultsBody,
) -> Response[
    ErrorBody
    | PostToolResultsResponse400
    | PostToolResultsResponse401
    | PostToolResultsResponse403
    | PostToolResultsResponse413
    | PostToolResultsResponse415
    | PostToolResultsResponse503
    | Run
]:
    """Records the client's result of every client tool call the run waits on
    and queues it again. Each output is capped like any tool's.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        body (ResultsBody): A result for every call the run waits on.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PostToolResultsResponse400 | PostToolResultsResponse401 | PostToolResultsResponse403 | PostToolResultsResponse413 | PostToolResultsResponse415 | PostToolResultsResponse503 | Run]
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
    body: ResultsBody,
) -> (
    ErrorBody
    | PostToolResultsResponse400
    | PostToolResultsResponse401
    | PostToolResultsResponse403
    | PostToolResultsResponse413
    | PostToolResultsResponse415
    | PostToolResultsResponse503
    | Run
    | None
):
    """Records the client's result of every client tool call the run waits on
    and queues it again. Each output is capped like any tool's.

    Args:
        id (str): An ID the server gave: a ULID (26 characters of Crockford's base 32)
        body (ResultsBody): A result for every call the run waits on.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PostToolResultsResponse400 | PostToolResultsResponse401 | PostToolResultsResponse403 | PostToolResultsResponse413 | PostToolResultsResponse415 | PostToolResultsResponse503 | Run
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
        )
    ).parsed
