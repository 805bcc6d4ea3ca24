"""The synchronous client."""

from __future__ import annotations

import functools
import time
from typing import (
    Any,
    Callable,
    Dict,
    Iterable,
    Iterator,
    List,
    Mapping,
    Optional,
    Union,
)
from urllib.parse import quote

import httpx

from . import _base
from ._base import (
    RetryPolicy,
    id_of,
    new_idempotency_key,
    parse,
    request_kwargs,
    status_of,
)
from .api_gen.client import Client as GeneratedClient
from .errors import Conflict, ServerError, WingmanError, raise_for_status
from .events import TERMINAL_STATUSES, Event, frame_event, iter_frames

FLEET_TERMINAL_STATUSES = frozenset({"succeeded", "failed", "cancelled"})


class Operations:
    """Every operation of the API by its operation ID, bound to a client.

    `wingman.api.get_run(id=...)` calls the generated `get_run.sync`; the
    answer is the generated model, and an error answer raises a WingmanError.
    """

    def __init__(self, client: GeneratedClient, asynchronous: bool) -> None:
        self._client = client
        self._asynchronous = asynchronous

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("_"):
            raise AttributeError(name)
        module = _base.operation(name)
        if module is None:
            raise AttributeError(f"no generated operation named {name!r}")
        function = module.asyncio if self._asynchronous else module.sync
        return functools.partial(function, client=self._client)

    def __dir__(self) -> List[str]:
        return sorted(_base.operation_index())


class Wingman:
    """A client of a Wingman server.

    `base_url` defaults to `WINGMAN_SERVER`, else http://127.0.0.1:2323; the
    API key (sent as `Authorization: Bearer`) to `WINGMAN_API_KEY`. Every
    error answer raises a WingmanError subclass typed by its status.

    `wingman.api` calls any operation by its operation ID, and
    `wingman.client` is the generated client for the generated functions
    in `wingman_client.api_gen.api`.
    """

    def __init__(
        self,
        base_url: Optional[str] = None,
        api_key: Optional[str] = None,
        timeout: Union[float, httpx.Timeout, None] = 30.0,
        retry: Optional[RetryPolicy] = None,
        httpx_args: Optional[Dict[str, Any]] = None,
    ) -> None:
        self.base_url = _base.resolve_base_url(base_url)
        self._timeout = _base.make_timeout(timeout)
        self.retry = retry or RetryPolicy()
        self._http = httpx.Client(
            base_url=self.base_url,
            headers=_base.default_headers(_base.resolve_api_key(api_key)),
            timeout=self._timeout,
            event_hooks={"response": [raise_for_status]},
            **(httpx_args or {}),
        )
        self.client = GeneratedClient(base_url=self.base_url, timeout=self._timeout)
        self.client.set_httpx_client(self._http)
        self.api = Operations(self.client, asynchronous=False)

    # Life cycle.

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Wingman:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # Requests.

    def _send(self, kwargs: Dict[str, Any]) -> httpx.Response:
        return self._http.request(**kwargs)

    def _submit(self, kwargs: Dict[str, Any]) -> httpx.Response:
        """Sends a submission, again after a lost answer, a 5xx or a 429: the
        request, its Idempotency-Key included, is the same on every attempt."""
        attempt = 0
        while True:
            try:
                return self._send(kwargs)
            except (httpx.HTTPError, WingmanError) as exc:
                if attempt + 1 >= self.retry.attempts or not self.retry.retryable(exc):
                    raise
                time.sleep(self.retry.delay(attempt, exc))
                attempt += 1

    def _call(self, name: str, submit: bool = False, **params: Any) -> Any:
        kwargs = request_kwargs(name, **params)
        response = self._submit(kwargs) if submit else self._send(kwargs)
        return parse(name, self.client, response)

    # The common flow.

    def create_agent(self, agent: Optional[Mapping[str, Any]] = None, **fields: Any) -> Any:
        """Creates an agent from a mapping, a generated `NewAgent` or keyword
        fields (`name`, `provider`, `model`, `options`, ...)."""
        body = {**_base.body_dict(agent), **fields}
        return self._call("create_agent", body=body)

    def create_session(self, session: Optional[Mapping[str, Any]] = None, **fields: Any) -> Any:
        """Creates a session (`agent_id`, `title`, `work_dir`, ... all optional)."""
        body = {**_base.body_dict(session), **fields}
        return self._call("create_session", body=body)

    def create_fleet(self, fleet: Optional[Mapping[str, Any]] = None, **fields: Any) -> Any:
        """Creates a fleet (`name`, `agent_id`, `worker_count`?, `work_dir`?)."""
        body = {**_base.body_dict(fleet), **fields}
        return self._call("create_fleet", body=body)

    def send_message(
        self,
        session_id: str,
        message: str,
        agent_id: Optional[str] = None,
        idempotency_key: Optional[str] = None,
        **fields: Any,
    ) -> Any:
        """Enqueues a message as a run and returns the accepted run (`run_id`).

        One Idempotency-Key (a new UUID unless given) goes with every
        attempt, so however often it is sent, the session gets one run.
        Other fields of the body (`priority`, `reasoning`, ...) are keywords.
        """
        body: Dict[str, Any] = {"message": message, **fields}
        if agent_id is not None:
            body["agent_id"] = agent_id
        key = idempotency_key or new_idempotency_key()
        return self._call(
            "send_message",
            submit=True,
            id=session_id,
            body=body,
            idempotency_key=key,
        )

    def run_fleet(
        self,
        fleet_id: str,
        tasks: Iterable[Union[str, Mapping[str, Any]]],
        idempotency_key: Optional[str] = None,
        **fields: Any,
    ) -> Any:
        """Submits a fleet run of `tasks` (each a message, or a mapping with
        `message`, `work_dir`?, `instructions`?, `data`?); returns the
        accepted fleet run (`fleet_run_id`). Retried with one Idempotency-Key."""
        task_list = [{"message": t} if isinstance(t, str) else dict(t) for t in tasks]
        body = {"tasks": task_list, **fields}
        key = idempotency_key or new_idempotency_key()
        return self._call(
            "run_fleet",
            submit=True,
            id=fleet_id,
            body=body,
            idempotency_key=key,
        )

    def approve(self, run_id: str, decisions: Iterable[Mapping[str, Any]]) -> Any:
        """Answers a run waiting for a person: one decision per waiting call,
        `{"call_id", "decision": "approve"|"edit"|"reject"|"respond", ...}`.

        Sent again after a lost answer like a submission. The route takes no
        Idempotency-Key; a retry that finds the decision already made (a 409
        after an attempt whose answer was lost) returns the run as it is.
        """
        body = {"decisions": [dict(d) for d in decisions]}
        kwargs = request_kwargs("approve_run", id=run_id, body=body)
        attempt = 0
        while True:
            try:
                return parse("approve_run", self.client, self._send(kwargs))
            except Conflict:
                if attempt == 0:
                    raise
                return self.get_run(run_id)
            except (httpx.HTTPError, WingmanError) as exc:
                if attempt + 1 >= self.retry.attempts or not self.retry.retryable(exc):
                    raise
                time.sleep(self.retry.delay(attempt, exc))
                attempt += 1

    def get_run(self, run_id: str) -> Any:
        return self._call("get_run", id=run_id)

    def get_fleet_run(self, fleet_run_id: str) -> Any:
        return self._call("get_fleet_run", id=fleet_run_id)

    def cancel_run(self, run_id: str) -> Any:
        return self._call("cancel_run", id=run_id)

    def list_runs(self, **query: Any) -> Any:
        """A page of runs: `session_id`, `fleet_run_id`, `status`, `limit`, `after`, `order`."""
        return self._call("list_runs", **query)

    def events(self, run_id: str, after: int = 0, limit: Optional[int] = None) -> List[Event]:
        """Every event of a run's log after `after`, read page by page as JSON."""
        return self._read_log(f"/runs/{quote(run_id, safe='')}/events", after, limit)

    def fleet_run_events(self, fleet_run_id: str, after: int = 0, limit: Optional[int] = None) -> List[Event]:
        """Every event of a fleet run's log after `after`, read page by page as JSON."""
        return self._read_log(f"/fleet-runs/{quote(fleet_run_id, safe='')}/events", after, limit)

    def _read_log(self, path: str, after: int, limit: Optional[int]) -> List[Event]:
        events: List[Event] = []
        while True:
            params: Dict[str, Any] = {"after": after}
            if limit is not None:
                params["limit"] = limit
            response = self._http.get(path, params=params, headers={"Accept": "application/json"})
            events += [Event.from_dict(e) for e in response.json()]
            following = response.headers.get("wingman-next-after")
            if following is None:
                return events
            after = int(following)

    # Tails.

    def tail(self, run_id: Any, after: Optional[int] = None, max_outage: float = 300.0) -> Iterator[Event]:
        """The run's events after `after` (from the first one by default),
        live until its `done`, which is the last event yielded.

        The stream reconnects by itself with `Last-Event-ID` after a dropped
        connection, a server restart or a database outage, so each `seq` is
        yielded exactly once and in order. It gives up, raising the last
        error, when it made no progress for `max_outage` seconds.
        """
        run_id = id_of(run_id, "run_id")
        return self._tail(f"/runs/{quote(run_id, safe='')}/events", after or 0, max_outage)

    def tail_fleet_run(
        self, fleet_run_id: Any, after: Optional[int] = None, max_outage: float = 300.0
    ) -> Iterator[Event]:
        """A fleet run's events (`fleet_queued`, a `result` per task, `done`),
        with the same guarantees as `tail`."""
        fleet_run_id = id_of(fleet_run_id, "fleet_run_id")
        return self._tail(f"/fleet-runs/{quote(fleet_run_id, safe='')}/events", after or 0, max_outage)

    def _tail(self, path: str, last: int, max_outage: float) -> Iterator[Event]:
        failures = 0
        hint: Optional[float] = None
        progress_at = time.monotonic()
        while True:
            error: Optional[BaseException] = None
            try:
                with self._http.stream(
                    "GET",
                    path,
                    headers={"Accept": "text/event-stream", "Last-Event-ID": str(last)},
                    timeout=_base.stream_timeout(self._timeout),
                ) as response:
                    if response.status_code == 204:
                        return
                    for frame in iter_frames(response.iter_lines()):
                        if frame.retry is not None:
                            hint = frame.retry / 1000.0
                        event = frame_event(frame)
                        if event is None:
                            continue
                        if event.seq <= last:
                            continue
                        if event.seq != last + 1:
                            # A gap is never expected; reading again from the
                            # last seq is always right, so the stream is reopened.
                            error = WingmanError(0, f"event {last + 1} missing before {event.seq}")
                            break
                        last = event.seq
                        failures = 0
                        progress_at = time.monotonic()
                        yield event
                        if event.type == "done":
                            return
            except ServerError as exc:
                if exc.status not in _base.RETRYABLE_5XX:
                    raise
                error = exc
            except httpx.TransportError as exc:
                error = exc
            if error is not None and time.monotonic() - progress_at > max_outage:
                raise error
            # A stream that ended without `done` (a server that went away, a
            # `retry:` hint alone) or failed: wait a little, then resume.
            time.sleep(_reconnect_delay(failures, hint, error))
            failures += 1

    # Waiting.

    def wait_for(self, run: Any, timeout: Optional[float] = None, poll: float = 1.0) -> Any:
        """Waits until the run has ended and returns it (the generated RunView).

        A run waiting for a person (`waiting`) has not ended: answer it, or
        give a `timeout`, after which TimeoutError is raised.
        """
        run_id = id_of(run, "run_id")
        return self._wait(lambda: self.get_run(run_id), TERMINAL_STATUSES, timeout, poll)

    def wait_for_fleet_run(self, fleet_run: Any, timeout: Optional[float] = None, poll: float = 1.0) -> Any:
        """Waits until the fleet run has ended and returns it."""
        fleet_run_id = id_of(fleet_run, "fleet_run_id")
        return self._wait(lambda: self.get_fleet_run(fleet_run_id), FLEET_TERMINAL_STATUSES, timeout, poll)

    def _wait(self, read: Callable[[], Any], done: frozenset, timeout: Optional[float], poll: float) -> Any:
        deadline = None if timeout is None else time.monotonic() + timeout
        pause = 0.05
        while True:
            try:
                current = read()
                if status_of(current) in done:
                    return current
            except (httpx.TransportError, ServerError) as exc:
                # A server restart or a database outage: the run goes on, so waiting does too.
                if isinstance(exc, ServerError) and exc.status not in _base.RETRYABLE_5XX:
                    raise
            if deadline is not None and time.monotonic() >= deadline:
                raise TimeoutError("the run has not ended yet")
            sleep = pause if deadline is None else min(pause, max(0.0, deadline - time.monotonic()))
            time.sleep(sleep)
            pause = min(poll, pause * 2)


def _reconnect_delay(failures: int, hint: Optional[float], error: Optional[BaseException]) -> float:
    """How long a tail waits before it reconnects: the server's `retry:` hint
    (or `Retry-After`) when it gave one, else a short backoff."""
    if isinstance(error, WingmanError) and error.retry_after is not None:
        return min(error.retry_after, 30.0)
    base = hint if hint is not None else 0.25
    if failures == 0 and error is None:
        return min(base, 0.25)
    return min(5.0, base * (2 ** min(failures, 4)))
