"""A submission whose answer is lost is sent again with the same
Idempotency-Key, and the server makes one run of it."""

from __future__ import annotations

import socket
import threading
from typing import List

from conftest import echo_agent, free_port

from wingman_client import Wingman


def read_request(sock: socket.socket) -> bytes:
    """One whole HTTP/1.1 request: its head, then Content-Length bytes of body."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


class DroppingProxy:
    """Forwards connections to the server; the first connection's request
    reaches the server, whose answer is read and thrown away, and the
    client's connection is closed without a byte: the answer is lost."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.port = free_port()
        self.requests: List[bytes] = []
        self.listener = socket.create_server(("127.0.0.1", self.port))
        self.listener.settimeout(0.2)
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        first = True
        while not self.stopped.is_set():
            try:
                conn, _ = self.listener.accept()
            except socket.timeout:
                continue
            conn.settimeout(10)
            if first:
                first = False
                self._drop(conn)
            else:
                threading.Thread(target=self._relay, args=(conn,), daemon=True).start()

    def _drop(self, conn: socket.socket) -> None:
        request = read_request(conn)
        self.requests.append(request)
        with socket.create_connection(("127.0.0.1", self.upstream_port), timeout=10) as upstream:
            upstream.sendall(request)
            # The server has answered, so it has made the run.
            assert upstream.recv(65536).startswith(b"HTTP/1.1 202")
        conn.close()

    def _relay(self, conn: socket.socket) -> None:
        with conn, socket.create_connection(("127.0.0.1", self.upstream_port), timeout=10) as upstream:
            while True:
                request = read_request(conn)
                if not request:
                    return
                self.requests.append(request)
                upstream.sendall(request)
                # The answers of this test are small and come whole.
                answer = upstream.recv(1 << 20)
                if not answer:
                    return
                conn.sendall(answer)

    def close(self) -> None:
        self.stopped.set()
        self.thread.join()
        self.listener.close()


def idempotency_key(request: bytes) -> str:
    for line in request.split(b"\r\n\r\n")[0].split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"idempotency-key":
            return value.strip().decode()
    raise AssertionError("no Idempotency-Key")


def test_submission_retried_after_a_dropped_connection_makes_one_run(wingman, client):
    agent = echo_agent(client)
    session = client.create_session(agent_id=agent.id)
    proxy = DroppingProxy(wingman.port)
    try:
        with Wingman(base_url=f"http://127.0.0.1:{proxy.port}") as through_proxy:
            accepted = through_proxy.send_message(session.id, "only once")
    finally:
        proxy.close()

    assert len(proxy.requests) == 2, "the client did not send the submission again"
    assert idempotency_key(proxy.requests[0]) == idempotency_key(proxy.requests[1])
    assert proxy.requests[0].split(b"\r\n\r\n")[1] == proxy.requests[1].split(b"\r\n\r\n")[1]
    runs = client.list_runs(session_id=session.id).runs
    assert [r.id for r in runs] == [accepted.run_id]
    assert client.wait_for(accepted.run_id, timeout=30).response == "only once"


def test_fleet_submission_with_a_given_key_is_made_once(client):
    agent = echo_agent(client)
    fleet = client.create_fleet(name="once", agent_id=agent.id)
    first = client.run_fleet(fleet.id, ["a", "b"], idempotency_key="fleet-key-1")
    again = client.run_fleet(fleet.id, ["a", "b"], idempotency_key="fleet-key-1")
    assert first.fleet_run_id == again.fleet_run_id
