"""The Python client of Wingman, a durable job queue for LLM agents.

    from wingman_client import Wingman
    with Wingman() as wingman:            # WINGMAN_SERVER, WINGMAN_API_KEY
        run = wingman.send_message(session_id, "hello", agent_id=agent_id)
        for event in wingman.tail(run.run_id):
            ...

The models and the per-operation functions are generated from the server's
OpenAPI document into `wingman_client.api_gen` (do not edit it; run
generate.py).
"""

from ._base import RetryPolicy
from .async_client import AsyncWingman
from .client import Operations, Wingman
from .errors import (
    BadRequest,
    Conflict,
    Forbidden,
    NotFound,
    ServerError,
    TooManyRequests,
    Unauthorized,
    UnprocessableEntity,
    WingmanError,
)
from .events import TERMINAL_STATUSES, Event

__version__ = "0.1.0"

__all__ = [
    "AsyncWingman",
    "BadRequest",
    "Conflict",
    "Event",
    "Forbidden",
    "NotFound",
    "Operations",
    "RetryPolicy",
    "ServerError",
    "TERMINAL_STATUSES",
    "TooManyRequests",
    "Unauthorized",
    "UnprocessableEntity",
    "Wingman",
    "WingmanError",
]
