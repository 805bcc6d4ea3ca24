"""Errors typed by the HTTP status of the server's answer.

Every error answer of Wingman is `{"error": "message"}`; the message is kept
as `.message`, so that what the server said reaches the caller unchanged.
"""

from __future__ import annotations

import json
from typing import Optional

import httpx


class WingmanError(Exception):
    """An error answer from the server: `.status` and the server's `.message`."""

    def __init__(self, status: int, message: str, response: Optional[httpx.Response] = None) -> None:
        super().__init__(f"{status}: {message}")
        self.status = status
        self.message = message
        self.response = response

    @property
    def retry_after(self) -> Optional[float]:
        """The `Retry-After` the server sent, in seconds, if any."""
        if self.response is None:
            return None
        value = self.response.headers.get("retry-after")
        try:
            return float(value) if value is not None else None
        except ValueError:
            return None


class BadRequest(WingmanError):
    """400: a value the server refuses (malformed JSON, a bad parameter...)."""


class Unauthorized(WingmanError):
    """401: no token, or one that is neither the server's token nor a live key."""


class Forbidden(WingmanError):
    """403: a key whose role may not make the request, or a refused host or origin."""


class NotFound(WingmanError):
    """404: an unknown (or deleted) resource or route."""


class Conflict(WingmanError):
    """409: a transition the resource's state does not allow."""


class UnprocessableEntity(WingmanError):
    """422: JSON that does not fit the request's shape, or a reused Idempotency-Key."""


class TooManyRequests(WingmanError):
    """429: a quota or rate limit; the same request may succeed later."""


class ServerError(WingmanError):
    """5xx: a failure of the server or its database (503 says: retry shortly)."""


_BY_STATUS = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    422: UnprocessableEntity,
    429: TooManyRequests,
}


def error_class(status: int) -> type:
    if status >= 500:
        return ServerError
    return _BY_STATUS.get(status, WingmanError)


def error_from_response(response: httpx.Response) -> WingmanError:
    """Builds the typed error of an answer whose body has been read."""
    message = ""
    try:
        body = json.loads(response.content)
        if isinstance(body, dict) and isinstance(body.get("error"), str):
            message = body["error"]
    except ValueError:
        pass
    if not message:
        message = response.text.strip() or response.reason_phrase
    return error_class(response.status_code)(response.status_code, message, response)


def raise_for_status(response: httpx.Response) -> None:
    """The response hook of the sync client: every error answer raises."""
    if response.status_code >= 400:
        response.read()
        raise error_from_response(response)


async def araise_for_status(response: httpx.Response) -> None:
    """The response hook of the async client."""
    if response.status_code >= 400:
        await response.aread()
        raise error_from_response(response)
