#!/usr/bin/env python3
"""An MCP server for Wingman's tests, over stdio or Streamable HTTP, that
records what it receives: one JSON line per initialize, tools/list and
tools/call (with the call's `_meta`) in the file $RECORD.

Its tools:
  note {text}       answers "noted: <text>".
  slow {seconds}    sleeps, then answers "slept"; a repeat of a call (the
                    same idempotency key, recorded before) answers at once,
                    "done before", as a server that honours the key would.
  grow {}           adds the tool `extra` and says the list changed.
  extra {}          (after grow) answers "extra".
  env {}            answers the SHA-256 of $TOKEN (stdio) or of the
                    Authorization header (HTTP), or "unset": never the value.
  die {}            exits at once; with $DEAD_MARK set, it stays dead: a
                    start that finds that file exits before answering.
  expire {}         (HTTP) forgets every session: the next request of an
                    old session is answered 404.

Usage: recorder.py stdio | recorder.py http PORT
"""

import hashlib
import json
import os
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

RECORD = os.environ.get("RECORD", "/dev/null")
LOCK = threading.Lock()
STATE = {"grown": False, "sessions": set()}


def record(event, **fields):
    with LOCK, open(RECORD, "a") as f:
        f.write(json.dumps({"event": event, "pid": os.getpid(), **fields}) + "\n")


def seen(key):
    """Whether a call with this idempotency key was recorded before."""
    if not key or not os.path.exists(RECORD):
        return False
    with LOCK, open(RECORD) as f:
        return any(json.loads(line).get("meta", {}).get("wingman/idempotency_key") == key for line in f)


def tool(name, description, properties=None):
    schema = {"type": "object", "properties": properties or {}}
    return {"name": name, "description": description, "inputSchema": schema}


def tools():
    listed = [
        tool("note", "Note some text", {"text": {"type": "string"}}),
        tool("slow", "Sleep a while", {"seconds": {"type": "number"}}),
        tool("grow", "Add a tool"),
        tool("env", "Say whether a token is set"),
        tool("die", "Exit"),
        tool("expire", "Forget every session"),
    ]
    if STATE["grown"]:
        listed.append(tool("extra", "A tool added later"))
    return listed


def digest(value):
    return "unset" if value is None else "sha256:" + hashlib.sha256(value.encode()).hexdigest()


def call(params, token):
    """Answers a tools/call: (result, notifications to send first)."""
    name, args = params.get("name"), params.get("arguments") or {}
    meta = params.get("_meta") or {}
    repeat = seen(meta.get("wingman/idempotency_key"))
    record("call", tool=name, arguments=args, meta=meta)
    text, notes = None, []
    if name == "note":
        text = "noted: " + str(args.get("text"))
    elif name == "slow" and repeat:
        text = "done before"
    elif name == "slow":
        time.sleep(float(args.get("seconds", 1)))
        text = "slept"
    elif name == "grow":
        STATE["grown"] = True
        notes.append({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        text = "grown"
    elif name == "extra" and STATE["grown"]:
        text = "extra"
    elif name == "env":
        text = digest(token)
    elif name == "die":
        if os.environ.get("DEAD_MARK"):
            open(os.environ["DEAD_MARK"], "w").close()
        os._exit(3)
    elif name == "expire":
        STATE["sessions"].clear()
        text = "expired"
    if text is None:
        return {"content": [{"type": "text", "text": f"no tool {name}"}], "isError": True}, notes
    return {"content": [{"type": "text", "text": text}], "isError": False}, notes


def answer(message, token):
    """Answers one JSON-RPC message: (response or None, notifications)."""
    method, params, mid = message.get("method"), message.get("params") or {}, message.get("id")
    if mid is None:
        return None, []
    if method == "initialize":
        record("initialize", version=params.get("protocolVersion"))
        result = {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {"listChanged": True}},
            "serverInfo": {"name": "recorder", "version": "1"},
        }
    elif method == "tools/list":
        record("list")
        result = {"tools": tools()}
    elif method == "tools/call":
        result, notes = call(params, token)
        return {"jsonrpc": "2.0", "id": mid, "result": result}, notes
    elif method == "ping":
        result = {}
    else:
        return {"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": f"no method {method}"}}, []
    return {"jsonrpc": "2.0", "id": mid, "result": result}, []


def serve_stdio():
    token = os.environ.get("TOKEN")
    for line in sys.stdin:
        if not line.strip():
            continue
        response, notes = answer(json.loads(line), token)
        for out in notes + ([response] if response else []):
            sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        self.send_response(405)
        self.end_headers()

    def do_DELETE(self):
        self.send_response(200)
        self.end_headers()

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        message = json.loads(body)
        session = self.headers.get("Mcp-Session-Id")
        if message.get("method") == "initialize":
            session = uuid.uuid4().hex
            STATE["sessions"].add(session)
        elif session not in STATE["sessions"]:
            record("expired_session")
            self.send_response(404)
            self.end_headers()
            return
        response, notes = answer(message, self.headers.get("Authorization"))
        if response is None:
            self.send_response(202)
            self.end_headers()
            return
        frames = "".join(f"event: message\ndata: {json.dumps(m)}\n\n" for m in notes + [response])
        data = frames.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Mcp-Session-Id", session)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def main():
    mark = os.environ.get("DEAD_MARK")
    if mark and os.path.exists(mark):
        sys.stderr.write("recorder: it died before, and stays dead\n")
        sys.exit(4)
    record("start", mode=sys.argv[1])
    if sys.argv[1] == "stdio":
        serve_stdio()
    else:
        ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2])), Handler).serve_forever()


if __name__ == "__main__":
    main()
