from __future__ import annotations

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.get_model_response_400 import GetModelResponse400
from ...models.get_model_response_401 import GetModelResponse401
from ...models.get_model_response_403 import GetModelResponse403
from ...models.get_model_response_503 import GetModelResponse503
from ...models.model_info import ModelInfo
from ...types import Response


def _get_kwargs(
    id: str,
    model: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/provider/{id}/models/{model}".format(
            id=quote(str(id), safe=""),
            model=quote(str(model), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ErrorBody
    | GetModelResponse400
    | GetModelResponse401
    | GetModelResponse403
    | GetModelResponse503
    | ModelInfo
    | None
):
    if response.status_code == 200:
        response_200 = ModelInfo.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = GetModelResponse400.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = GetModelResponse401.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = GetModelResponse403.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 503:
        response_503 = GetModelResponse503.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ErrorBody
    | GetModelResponse400
    | GetModelResponse401
    | GetModelResponse403
    | GetModelResponse503
    | ModelInfo
]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: str,
    model: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[
    ErrorBody
    | GetModelResponse400
    | GetModelResponse401
    | GetModelResponse403
    | GetModelResponse503
    | ModelInfo
]:
    """One model of a provider.

    Args:
        id (str):
        model (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | GetModelResponse400 | GetModelResponse401 | GetModelResponse403 | GetModelResponse503 | ModelInfo]
    """

    kwargs = _get_kwargs(
        id=id,
        model=model,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    model: str,
    *,
    client: AuthenticatedClient | Client,
) -> (
    ErrorBody
    | GetModelResponse400
    | GetModelResponse401
    | GetModelResponse403
    | GetModelResponse503
    | ModelInfo
    | None
):
    """One model of a provider.

    Args:
        id (str):
        model (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | GetModelResponse400 | GetModelResponse401 | GetModelResponse403 | GetModelResponse503 | ModelInfo
    """

    return sync_detailed(
        id=id,
        model=model,
        client=client,
    ).parsed


async def asyncio_detailed(
    id: str,
    model: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[
    ErrorBody
    | GetModelResponse400
    | GetModelResponse401
    | GetModelResponse403
    | GetModelResponse503
    | ModelInfo
]:
    """One model of a provider.

    Args:
        id (str):
        model (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | GetModelResponse400 | GetModelResponse401 | GetModelResponse403 | GetModelResponse503 | ModelInfo]
    """

    kwargs = _get_kwargs(
        id=id,
        model=model,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    model: str,
    *,
    client: AuthenticatedClient | Client,
) -> (
    ErrorBody
    | GetModelResponse400
    | GetModelResponse401
    | GetModelResponse403
    | GetModelResponse503
    | ModelInfo
    | None
):
    """One model of a provider.

    Args:
        id (str):
        model (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | GetModelResponse400 | GetModelResponse401 | GetModelResponse403 | GetModelResponse503 | ModelInfo
    """

    return (
        await asyncio_detailed(
            id=id,
            model=model,
            client=client,
        )
    ).parsed
