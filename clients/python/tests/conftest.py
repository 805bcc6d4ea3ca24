"""A real Wingman for the tests: an API-only server and a separate worker
process on one SQLite database in a temporary directory.

The binary is WINGMAN_BIN, else the workspace's target/debug/wingman. The
server asks for a token, which the clients read from WINGMAN_API_KEY.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Dict, Iterator, List, Optional

import httpx
import pytest

HERE = Path(__file__).resolve().parent
TOKEN = "client-tests-token"


def wingman_bin() -> str:
    return os.environ.get("WINGMAN_BIN") or str(HERE.parents[2] / "target" / "debug" / "wingman")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Wingman:
    """The processes of one test server, and what the tests do to them."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.token = TOKEN
        self.database_url = f"sqlite://{tmp}/w.db"
        self.data_dir = tmp / "data"
        self.data_dir.mkdir()
        self.server: Optional[subprocess.Popen] = None
        self.worker: Optional[subprocess.Popen] = None
        self._logs: List = []

    def _spawn(self, name: str, args: List[str]) -> subprocess.Popen:
        log = open(self.tmp / f"{name}.log", "ab")
        self._logs.append(log)
        return subprocess.Popen(
            [wingman_bin(), *args], stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        )

    def start_server(self) -> None:
        self.server = self._spawn(
            "server",
            [
                "serve",
                "--addr",
                f"127.0.0.1:{self.port}",
                "--workers",
                "0",
                "--database-url",
                self.database_url,
                "--data-dir",
                str(self.data_dir),
                "--auth-token",
                self.token,
                # The proxy of the retry test forwards requests whose Host names its own port.
                "--allowed-host",
                "127.0.0.1",
            ],
        )
        self.wait_healthy()

    def start_worker(self) -> None:
        self.worker = self._spawn(
            "worker",
            [
                "worker",
                "--database-url",
                self.database_url,
                "--data-dir",
                str(self.data_dir),
                "--poll-ms",
                "50",
            ],
        )

    def wait_healthy(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.server is not None and self.server.poll() is not None:
                raise RuntimeError(f"the server exited: {self.log('server')}")
            try:
                if httpx.get(f"{self.url}/health", timeout=1.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        raise RuntimeError(f"the server did not become healthy: {self.log('server')}")

    def kill_server(self) -> None:
        """SIGKILL: no graceful shutdown, open streams are cut."""
        assert self.server is not None
        self.server.send_signal(signal.SIGKILL)
        self.server.wait()

    def log(self, name: str) -> str:
        path = self.tmp / f"{name}.log"
        return path.read_text(errors="replace")[-4000:] if path.exists() else ""

    def stop(self) -> None:
        for proc in (self.server, self.worker):
            if proc is not None and proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                proc.wait()
        for log in self._logs:
            log.close()


@pytest.fixture(scope="session")
def wingman(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Wingman]:
    if not Path(wingman_bin()).exists():
        pytest.fail(f"no wingman binary at {wingman_bin()} (set WINGMAN_BIN)")
    instance = Wingman(tmp_path_factory.mktemp("wingman"))
    saved: Dict[str, Optional[str]] = {k: os.environ.get(k) for k in ("WINGMAN_SERVER", "WINGMAN_API_KEY")}
    try:
        instance.start_server()
        instance.start_worker()
        # The clients are made with no arguments: they must read both from the environment.
        os.environ["WINGMAN_SERVER"] = instance.url
        os.environ["WINGMAN_API_KEY"] = instance.token
        yield instance
    finally:
        instance.stop()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@pytest.fixture
def client(wingman: Wingman):
    from wingman_client import Wingman as Client

    with Client() as c:
        yield c


def echo_agent(client, **fields):
    """A scripted agent that answers with the message, or plays `options`."""
    body = {"name": "test", "provider": "scripted", "model": "echo", **fields}
    return client.create_agent(body)
