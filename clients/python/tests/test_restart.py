"""A tail survives a SIGKILL and restart of the server, each seq once."""

from __future__ import annotations

import time

from conftest import echo_agent

WORDS = 150


def test_tail_survives_server_sigkill(wingman, client):
    text = " ".join(f"word{i}" for i in range(WORDS))
    agent = echo_agent(client, options={"script": [{"text": text}], "chunk_delay_ms": 25})
    session = client.create_session(agent_id=agent.id)
    run = client.send_message(session.id, "stream slowly")

    events = []
    killed_at = None
    for event in client.tail(run.run_id):
        events.append(event)
        if killed_at is None and event.type == "text_delta" and len(events) >= 6:
            # The worker goes on writing the run's events while the server is
            # down; the tail must pick them up from its Last-Event-ID.
            old_pid = wingman.server.pid
            wingman.kill_server()
            killed_at = len(events)
            time.sleep(1.0)
            wingman.start_server()
            assert wingman.server.pid != old_pid

    assert killed_at is not None, "the run ended before the server could be killed"
    assert len(events) > killed_at, "no event was read after the restart"
    print(f"killed after {killed_at} of {len(events)} events")
    assert any(e.type == "text_delta" for e in events[killed_at:]), "the run ended before the restart"
    seqs = [e.seq for e in events]
    assert seqs == list(range(1, len(events) + 1))
    assert events[-1].type == "done" and events[-1]["status"] == "succeeded"
    assert "".join(e["text"] for e in events if e.type == "text_delta") == text

    # The JSON log, read in pages, is exactly what the tail yielded.
    log = client.events(run.run_id, limit=7)
    assert [(e.seq, e.type) for e in log] == [(e.seq, e.type) for e in events]
    assert [e.data for e in log] == [e.data for e in events]
