"""The common flow through the client: messages, fleets, approvals."""

from __future__ import annotations

import asyncio

from conftest import echo_agent

from wingman_client import AsyncWingman, Event


def assert_dense(events: "list[Event]", first: int = 1) -> None:
    assert [e.seq for e in events] == list(range(first, first + len(events)))


def test_message_tailed_to_done(client):
    agent = echo_agent(client)
    session = client.create_session(agent_id=agent.id)
    run = client.send_message(session.id, "hello from python", agent_id=agent.id)
    events = list(client.tail(run.run_id))
    assert_dense(events)
    assert events[0].type == "run_queued" and events[0].run_id == run.run_id
    assert events[-1].type == "done" and events[-1]["status"] == "succeeded"
    assert "".join(e["text"] for e in events if e.type == "text_delta") == "hello from python"
    assert events[-1].model().seq == events[-1].seq
    finished = client.wait_for(run.run_id, timeout=30)
    assert finished.status == "succeeded"
    assert finished.response == "hello from python"


def test_message_tailed_to_done_async(wingman):
    async def flow():
        async with AsyncWingman() as client:
            agent = await client.create_agent(name="async", provider="scripted", model="echo")
            session = await client.create_session(agent_id=agent.id)
            run = await client.send_message(session.id, "hello async")
            events = [e async for e in client.tail(run)]
            finished = await client.wait_for(run, timeout=30)
            fetched = await client.api.get_run(id=run.run_id)
            return events, finished, fetched

    events, finished, fetched = asyncio.run(flow())
    assert_dense(events)
    assert events[-1].type == "done"
    assert finished.status == "succeeded" and finished.response == "hello async"
    assert fetched.id == finished.id


def test_tail_after_resumes_past_a_seq(client):
    agent = echo_agent(client)
    session = client.create_session(agent_id=agent.id)
    run = client.send_message(session.id, "resume me")
    everything = list(client.tail(run.run_id))
    rest = list(client.tail(run.run_id, after=2))
    assert [e.seq for e in rest] == [e.seq for e in everything[2:]]
    # A log read to its end answers 204: the tail ends with nothing more.
    assert list(client.tail(run.run_id, after=everything[-1].seq)) == []


def test_fleet_run_of_twenty_tasks(client):
    agent = echo_agent(client)
    fleet = client.create_fleet(name="twenty", agent_id=agent.id, worker_count=4)
    accepted = client.run_fleet(fleet.id, [f"task {i}" for i in range(20)])
    events = list(client.tail_fleet_run(accepted.fleet_run_id))
    assert_dense(events)
    assert events[-1].type == "done"
    results = [e for e in events if e.type == "result"]
    assert len(results) == 20
    assert sorted(e["task_index"] for e in results) == list(range(20))
    assert all(e["status"] == "succeeded" for e in results)
    assert {e["response"] for e in results} == {f"task {i}" for i in range(20)}
    assert all(e.fleet_run_id == accepted.fleet_run_id for e in events)
    fleet_run = client.wait_for_fleet_run(accepted, timeout=30)
    assert fleet_run.status == "succeeded"
    assert fleet_run.progress.succeeded == 20


def test_approval_answered_through_the_client(client):
    agent = echo_agent(
        client,
        tools=["bash"],
        approve_tools=["bash"],
        options={
            "script": [
                {"tool_calls": [{"name": "bash", "input": {"command": "echo approved-call-ran"}}]},
                {"text": "all done"},
            ]
        },
    )
    session = client.create_session(agent_id=agent.id)
    run = client.send_message(session.id, "run a command")
    seen = []
    for event in client.tail(run.run_id):
        seen.append(event)
        if event.type == "approval_requested":
            calls = event["calls"]
            assert [c["name"] for c in calls] == ["bash"]
            waiting = client.get_run(run.run_id)
            assert waiting.status == "waiting"
            client.approve(run.run_id, [{"call_id": c["call_id"], "decision": "approve"} for c in calls])
    assert_dense(seen)
    types = [e.type for e in seen]
    assert types.index("approval_requested") < types.index("approval_decided") < types.index("tool_result")
    result = next(e for e in seen if e.type == "tool_result")
    assert "approved-call-ran" in str(result["output"]) and not result["is_error"]
    assert seen[-1].type == "done" and seen[-1]["status"] == "succeeded"
    assert client.wait_for(run.run_id, timeout=30).response == "all done"
