"""What the sync and async clients share: settings, retries, operations."""

from __future__ import annotations

import importlib
import os
import pkgutil
import random
import uuid
from functools import lru_cache
from types import ModuleType
from typing import Any, Dict, Mapping, Optional, Union

import httpx

from .errors import ServerError, TooManyRequests, WingmanError

DEFAULT_URL = "http://127.0.0.1:2323"

#: Statuses of the 5xx class whose request may succeed if sent again. 501 and
#: 507 (the database's disk is full) do not get better by waiting.
RETRYABLE_5XX = frozenset({500, 502, 503, 504})


def resolve_base_url(base_url: Optional[str]) -> str:
    return (base_url or os.environ.get("WINGMAN_SERVER") or DEFAULT_URL).rstrip("/")


def resolve_api_key(api_key: Optional[str]) -> Optional[str]:
    return api_key if api_key is not None else (os.environ.get("WINGMAN_API_KEY") or None)


def default_headers(api_key: Optional[str]) -> Dict[str, str]:
    headers = {"User-Agent": "wingman-client-python"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    return headers


def make_timeout(timeout: Union[float, httpx.Timeout, None]) -> httpx.Timeout:
    if isinstance(timeout, httpx.Timeout):
        return timeout
    return httpx.Timeout(timeout)


def stream_timeout(timeout: httpx.Timeout) -> httpx.Timeout:
    """The timeout of an event stream: the server sends a keep-alive every 15 s,
    so a read that waits much longer than that is a connection that died
    silently, and the tail reconnects."""
    return httpx.Timeout(connect=timeout.connect, read=60.0, write=timeout.write, pool=timeout.pool)


def new_idempotency_key() -> str:
    return str(uuid.uuid4())


class RetryPolicy:
    """How submissions are sent again after a lost or refused-for-now answer.

    A submission carries one Idempotency-Key on every attempt, so the server
    makes at most one run of it however many attempts reach it.
    """

    def __init__(self, attempts: int = 6, initial: float = 0.2, maximum: float = 5.0) -> None:
        self.attempts = attempts
        self.initial = initial
        self.maximum = maximum

    def retryable(self, exc: BaseException) -> bool:
        if isinstance(exc, (httpx.UnsupportedProtocol, httpx.LocalProtocolError)):
            return False
        if isinstance(exc, httpx.TransportError):
            return True
        if isinstance(exc, TooManyRequests):
            return True
        return isinstance(exc, ServerError) and exc.status in RETRYABLE_5XX

    def delay(self, attempt: int, exc: BaseException) -> float:
        """Seconds to wait before attempt number `attempt + 1` (0-based)."""
        backoff = min(self.maximum, self.initial * (2**attempt))
        # Jitter keeps many clients that failed together from retrying together.
        backoff *= 0.5 + random.random() / 2
        if isinstance(exc, WingmanError) and exc.retry_after is not None:
            backoff = max(backoff, min(exc.retry_after, 30.0))
        return backoff


class Json:
    """A request body given as plain JSON data, where a generated function
    expects a model: the generated code only calls its `to_dict()`."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self._data = dict(data)

    def to_dict(self) -> Dict[str, Any]:
        return dict(self._data)


def body_dict(body: Any) -> Dict[str, Any]:
    """A body given as a generated model or a mapping, as JSON data."""
    if body is None:
        return {}
    if hasattr(body, "to_dict"):
        return body.to_dict()
    return dict(body)


class RawModel(dict):
    """An answer read as plain JSON, with attribute access to its fields.

    Used only for an answer whose status the OpenAPI document does not list.
    """

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


@lru_cache(maxsize=1)
def operation_index() -> Dict[str, str]:
    """Every generated operation: its operation ID and the module that holds it."""
    from . import api_gen
    from .api_gen import api as api_package

    index: Dict[str, str] = {}
    for tag in pkgutil.iter_modules(api_package.__path__):
        if not tag.ispkg:
            continue
        tag_package = importlib.import_module(f"{api_gen.__name__}.api.{tag.name}")
        for op in pkgutil.iter_modules(tag_package.__path__):
            index[op.name] = f"{tag_package.__name__}.{op.name}"
    return index


def operation(name: str) -> Optional[ModuleType]:
    """The generated module of an operation, or None when it was not generated."""
    path = operation_index().get(name)
    if path is None:
        return None
    return importlib.import_module(path)


def request_kwargs(name: str, **params: Any) -> Dict[str, Any]:
    """The request of an operation, as its generated module builds it.

    `params` are the generated function's keyword arguments (`id`, `body`,
    `wait`, `idempotency_key`, …); None means not given, and a body may be
    plain JSON data.
    """
    module = operation(name)
    if module is None:
        raise RuntimeError(f"the generated code has no operation {name!r}: run generate.py")
    from .api_gen.types import UNSET

    if params.get("body") is not None:
        params["body"] = Json(body_dict(params["body"]))
    return module._get_kwargs(**{k: (UNSET if v is None else v) for k, v in params.items()})


def parse(name: str, client: Any, response: httpx.Response) -> Any:
    """An answer as the generated model of its operation and status; an
    answer with a status the document does not list is read as plain JSON."""
    module = operation(name)
    parsed = module._parse_response(client=client, response=response) if module else None
    if parsed is not None:
        return parsed
    if not response.content:
        return None
    return RawModel(response.json())


def status_of(run: Any) -> str:
    status = run["status"] if isinstance(run, dict) else run.status
    return getattr(status, "value", status)


def id_of(value: Any, *fields: str) -> str:
    """The ID in a string, or in an answer's `run_id`/`fleet_run_id`/`id`."""
    if isinstance(value, str):
        return value
    for name in fields + ("id",):
        found = value.get(name) if isinstance(value, dict) else getattr(value, name, None)
        if isinstance(found, str):
            return found
    raise TypeError(f"no ID in {value!r}")
