"""Error answers come back as exceptions typed by status, with the server's message."""

from __future__ import annotations

import httpx
import pytest
from conftest import echo_agent

from wingman_client import (
    BadRequest,
    Conflict,
    NotFound,
    Unauthorized,
    UnprocessableEntity,
    Wingman,
    WingmanError,
)

UNKNOWN_RUN = "01ARZ3NDEKTSV4RRFFQ69G5FAV"


def server_error_message(wingman, method: str, path: str, **kwargs) -> str:
    headers = {"Authorization": f"Bearer {wingman.token}"}
    return httpx.request(method, wingman.url + path, headers=headers, **kwargs).json()["error"]


def test_unknown_run_is_not_found(wingman, client):
    with pytest.raises(NotFound) as caught:
        client.get_run(UNKNOWN_RUN)
    assert caught.value.status == 404
    assert caught.value.message == server_error_message(wingman, "GET", f"/runs/{UNKNOWN_RUN}")
    assert caught.value.message
    # The generated operations raise the same errors.
    with pytest.raises(NotFound):
        client.api.get_run(id=UNKNOWN_RUN)
    with pytest.raises(NotFound):
        list(client.tail(UNKNOWN_RUN))


def test_idempotency_key_reused_with_another_body_is_unprocessable(client):
    agent = echo_agent(client)
    session = client.create_session(agent_id=agent.id)
    client.send_message(session.id, "first", idempotency_key="reused-key")
    with pytest.raises(UnprocessableEntity) as caught:
        client.send_message(session.id, "second", idempotency_key="reused-key")
    assert caught.value.status == 422
    assert "Idempotency-Key" in caught.value.message or "idempotency" in caught.value.message.lower()


def test_unknown_field_is_unprocessable_with_the_server_message(wingman, client):
    body = {"name": "x", "provider": "scripted", "no_such_field": 1}
    with pytest.raises(UnprocessableEntity) as caught:
        client.create_agent(body)
    assert caught.value.message == server_error_message(wingman, "POST", "/agents", json=body)
    assert "no_such_field" in caught.value.message


def test_other_statuses_are_typed(wingman, client):
    with pytest.raises(BadRequest):
        client.create_agent(name="x", provider="no-such-provider", model="m")
    agent = echo_agent(client)
    session = client.create_session(agent_id=agent.id)
    run = client.send_message(session.id, "done soon")
    client.wait_for(run, timeout=30)
    with pytest.raises(Conflict) as caught:
        client.cancel_run(run.run_id)
    assert isinstance(caught.value, WingmanError) and caught.value.status == 409
    with Wingman(api_key="not-the-token") as wrong, pytest.raises(Unauthorized) as caught:
        wrong.get_run(run.run_id)
    assert caught.value.status == 401 and caught.value.message
