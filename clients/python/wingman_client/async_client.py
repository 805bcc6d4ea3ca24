"""The asynchronous client: the same methods as Wingman, to be awaited."""

from __future__ import annotations

import asyncio
import time
from typing import (
    Any,
    AsyncIterator,
    Awaitable,
    Callable,
    Dict,
    Iterable,
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
from .client import FLEET_TERMINAL_STATUSES, Operations, _reconnect_delay
from .errors import Conflict, ServerError, WingmanError, araise_for_status
from .events import TERMINAL_STATUSES, Event, SSEDecoder, frame_event


class AsyncWingman:
    """The asynchronous client of a Wingman server; see `Wingman`.

    `await wingman.api.get_run(id=...)` calls the generated `get_run.asyncio`.
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
        self._http = httpx.AsyncClient(
            base_url=self.base_url,
            headers=_base.default_headers(_base.resolve_api_key(api_key)),
            timeout=self._timeout,
            event_hooks={"response": [araise_for_status]},
            **(httpx_args or {}),
        )
        self.client = GeneratedClient(base_url=self.base_url, timeout=self._timeout)
        self.client.set_async_httpx_client(self._http)
        self.api = Operations(self.client, asynchronous=True)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncWingman:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    async def _send(self, kwargs: Dict[str, Any]) -> httpx.Response:
        return await self._http.request(**kwargs)

    async def _submit(self, kwargs: Dict[str, Any]) -> httpx.Response:
        attempt = 0
        while True:
            try:
                return await self._send(kwargs)
            except (httpx.HTTPError, WingmanError) as exc:
                if attempt + 1 >= self.retry.attempts or not self.retry.retryable(exc):
                    raise
                await asyncio.sleep(self.retry.delay(attempt, exc))
                attempt += 1

    async def _call(self, name: str, submit: bool = False, **params: Any) -> Any:
        kwargs = request_kwargs(name, **params)
        response = await (self._submit(kwargs) if submit else self._send(kwargs))
        return parse(name, self.client, response)

    async def create_agent(self, agent: Optional[Mapping[str, Any]] = None, **fields: Any) -> Any:
        body = {**_base.body_dict(agent), **fields}
        return await self._call("create_agent", body=body)

    async def create_session(self, session: Optional[Mapping[str, Any]] = None, **fields: Any) -> Any:
        body = {**_base.body_dict(session), **fields}
        return await self._call("create_session", body=body)

    async def create_fleet(self, fleet: Optional[Mapping[str, Any]] = None, **fields: Any) -> Any:
        body = {**_base.body_dict(fleet), **fields}
        return await self._call("create_fleet", body=body)

    async def send_message(
        self,
        session_id: str,
        message: str,
        agent_id: Optional[str] = None,
        idempotency_key: Optional[str] = None,
        **fields: Any,
    ) -> Any:
        body: Dict[str, Any] = {"message": message, **fields}
        if agent_id is not None:
            body["agent_id"] = agent_id
        key = idempotency_key or new_idempotency_key()
        return await self._call(
            "send_message",
            submit=True,
            id=session_id,
            body=body,
            idempotency_key=key,
        )

    async def run_fleet(
        self,
        fleet_id: str,
        tasks: Iterable[Union[str, Mapping[str, Any]]],
        idempotency_key: Optional[str] = None,
        **fields: Any,
    ) -> Any:
        task_list = [{"message": t} if isinstance(t, str) else dict(t) for t in tasks]
        body = {"tasks": task_list, **fields}
        key = idempotency_key or new_idempotency_key()
        return await self._call(
            "run_fleet",
            submit=True,
            id=fleet_id,
            body=body,
            idempotency_key=key,
        )

    async def approve(self, run_id: str, decisions: Iterable[Mapping[str, Any]]) -> Any:
        body = {"decisions": [dict(d) for d in decisions]}
        kwargs = request_kwargs("approve_run", id=run_id, body=body)
        attempt = 0
        while True:
            try:
                return parse("approve_run", self.client, await self._send(kwargs))
            except Conflict:
                if attempt == 0:
                    raise
                return await self.get_run(run_id)
            except (httpx.HTTPError, WingmanError) as exc:
                if attempt + 1 >= self.retry.attempts or not self.retry.retryable(exc):
                    raise
                await asyncio.sleep(self.retry.delay(attempt, exc))
                attempt += 1

    async def get_run(self, run_id: str) -> Any:
        return await self._call("get_run", id=run_id)

    async def get_fleet_run(self, fleet_run_id: str) -> Any:
        return await self._call("get_fleet_run", id=fleet_run_id)

    async def cancel_run(self, run_id: str) -> Any:
        return await self._call("cancel_run", id=run_id)

    async def list_runs(self, **query: Any) -> Any:
        return await self._call("list_runs", **query)

    async def events(self, run_id: str, after: int = 0, limit: Optional[int] = None) -> List[Event]:
        return await self._read_log(f"/runs/{quote(run_id, safe='')}/events", after, limit)

    async def fleet_run_events(
        self, fleet_run_id: str, after: int = 0, limit: Optional[int] = None
    ) -> List[Event]:
        return await self._read_log(f"/fleet-runs/{quote(fleet_run_id, safe='')}/events", after, limit)

    async def _read_log(self, path: str, after: int, limit: Optional[int]) -> List[Event]:
        events: List[Event] = []
        while True:
            params: Dict[str, Any] = {"after": after}
            if limit is not None:
                params["limit"] = limit
            response = await self._http.get(path, params=params, headers={"Accept": "application/json"})
            events += [Event.from_dict(e) for e in response.json()]
            following = response.headers.get("wingman-next-after")
            if following is None:
                return events
            after = int(following)

    def tail(
        self, run_id: Any, after: Optional[int] = None, max_outage: float = 300.0
    ) -> AsyncIterator[Event]:
        """`async for event in wingman.tail(run_id)`: see `Wingman.tail`."""
        run_id = id_of(run_id, "run_id")
        return self._tail(f"/runs/{quote(run_id, safe='')}/events", after or 0, max_outage)

    def tail_fleet_run(
        self, fleet_run_id: Any, after: Optional[int] = None, max_outage: float = 300.0
    ) -> AsyncIterator[Event]:
        fleet_run_id = id_of(fleet_run_id, "fleet_run_id")
        return self._tail(f"/fleet-runs/{quote(fleet_run_id, safe='')}/events", after or 0, max_outage)

    async def _tail(self, path: str, last: int, max_outage: float) -> AsyncIterator[Event]:
        failures = 0
        hint: Optional[float] = None
        progress_at = time.monotonic()
        while True:
            error: Optional[BaseException] = None
            try:
                async with self._http.stream(
                    "GET",
                    path,
                    headers={"Accept": "text/event-stream", "Last-Event-ID": str(last)},
                    timeout=_base.stream_timeout(self._timeout),
                ) as response:
                    if response.status_code == 204:
                        return
                    decoder = SSEDecoder()
                    async for line in response.aiter_lines():
                        frame = decoder.feed(line)
                        if frame is None:
                            continue
                        if frame.retry is not None:
                            hint = frame.retry / 1000.0
                        event = frame_event(frame)
                        if event is None or event.seq <= last:
                            continue
                        if event.seq != last + 1:
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
            await asyncio.sleep(_reconnect_delay(failures, hint, error))
            failures += 1

    async def wait_for(self, run: Any, timeout: Optional[float] = None, poll: float = 1.0) -> Any:
        run_id = id_of(run, "run_id")
        return await self._wait(lambda: self.get_run(run_id), TERMINAL_STATUSES, timeout, poll)

    async def wait_for_fleet_run(
        self, fleet_run: Any, timeout: Optional[float] = None, poll: float = 1.0
    ) -> Any:
        fleet_run_id = id_of(fleet_run, "fleet_run_id")
        return await self._wait(
            lambda: self.get_fleet_run(fleet_run_id), FLEET_TERMINAL_STATUSES, timeout, poll
        )

    async def _wait(
        self, read: Callable[[], Awaitable[Any]], done: frozenset, timeout: Optional[float], poll: float
    ) -> Any:
        deadline = None if timeout is None else time.monotonic() + timeout
        pause = 0.05
        while True:
            try:
                current = await read()
                if status_of(current) in done:
                    return current
            except (httpx.TransportError, ServerError) as exc:
                if isinstance(exc, ServerError) and exc.status not in _base.RETRYABLE_5XX:
                    raise
            if deadline is not None and time.monotonic() >= deadline:
                raise TimeoutError("the run has not ended yet")
            sleep = pause if deadline is None else min(pause, max(0.0, deadline - time.monotonic()))
            await asyncio.sleep(sleep)
            pause = min(poll, pause * 2)
