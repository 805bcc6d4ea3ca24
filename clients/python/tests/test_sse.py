"""The tail's reading of SSE, on answers made up for each case: a 503, a
stream of a `retry:` hint alone, a frame cut by a dropped connection, a
replayed event, keep-alive comments and a 204."""

from __future__ import annotations

import asyncio
import json
from typing import Callable, List

import httpx

from wingman_client import AsyncWingman, Wingman
from wingman_client.events import SSEDecoder

RUN = "01ARZ3NDEKTSV4RRFFQ69G5FAV"


def frame(seq: int, type_: str, **fields) -> str:
    data = {"run_id": RUN, "seq": seq, "type": type_, "at": "2026-01-01T00:00:00Z", **fields}
    return f"id: {seq}\nevent: {type_}\ndata: {json.dumps(data)}\n\n"


def script() -> "tuple[List[str], Callable[[httpx.Request], httpx.Response]]":
    """The server's answers in turn, and the Last-Event-ID of each request."""
    sent: List[str] = []
    answers = [
        httpx.Response(503, json={"error": "the database cannot be reached"}, headers={"Retry-After": "0"}),
        httpx.Response(
            200, text=": keep-alive\nretry: 10\n\n", headers={"Content-Type": "text/event-stream"}
        ),
        httpx.Response(
            200,
            text="retry: 10\n\n"
            + frame(1, "run_queued")
            + ": keep-alive\n\n"
            + frame(2, "text_delta", text="a")
            + 'id: 3\nevent: text_delta\ndata: {"cut',
            headers={"Content-Type": "text/event-stream"},
        ),
        httpx.Response(
            200,
            text=frame(2, "text_delta", text="a")
            + frame(3, "text_delta", text="b")
            + frame(4, "done", status="succeeded"),
            headers={"Content-Type": "text/event-stream"},
        ),
        httpx.Response(204),
    ]

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.headers["accept"] == "text/event-stream"
        sent.append(request.headers["last-event-id"])
        return answers[len(sent) - 1]

    return sent, handler


def test_tail_retries_and_yields_each_seq_once():
    sent, handler = script()
    with Wingman(
        base_url="http://wingman.test", httpx_args={"transport": httpx.MockTransport(handler)}
    ) as client:
        events = list(client.tail(RUN))
    assert [e.seq for e in events] == [1, 2, 3, 4]
    assert [e.type for e in events] == ["run_queued", "text_delta", "text_delta", "done"]
    assert sent == ["0", "0", "0", "2"]
    assert events[1]["text"] == "a" and events[0].at.year == 2026


def test_async_tail_retries_and_yields_each_seq_once():
    sent, handler = script()

    async def read():
        transport = httpx.MockTransport(handler)
        async with AsyncWingman(
            base_url="http://wingman.test", httpx_args={"transport": transport}
        ) as client:
            return [e async for e in client.tail(RUN)]

    events = asyncio.run(read())
    assert [e.seq for e in events] == [1, 2, 3, 4]
    assert sent == ["0", "0", "0", "2"]


def test_204_ends_the_tail():
    handler = lambda request: httpx.Response(204)  # noqa: E731
    with Wingman(
        base_url="http://wingman.test", httpx_args={"transport": httpx.MockTransport(handler)}
    ) as client:
        assert list(client.tail(RUN, after=9)) == []


def test_decoder_joins_data_lines_and_skips_comments():
    decoder = SSEDecoder()
    frames = [decoder.feed(line) for line in [": hi", "event: x", "data: 1", "data: 2", "id: 7", ""]]
    assert frames[:-1] == [None] * 5
    assert (frames[-1].event, frames[-1].data, frames[-1].id) == ("x", "1\n2", "7")
    assert decoder.feed("") is None
