/**
 * The tail's reconnection rules against a scripted SSE server, which can misbehave in ways the
 * real one does only under faults: replays that overlap, a gap, a 503, a stream of a retry hint
 * alone, a frame cut in half, keep-alive comments.
 */

import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { test } from "node:test";
import { Wingman, type RunEvent } from "../src/index.js";

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** A server that answers its n-th request with the n-th handler and records the requests. */
async function scripted(handlers: Handler[]) {
  const requests: IncomingMessage[] = [];
  const server = createServer((request, response) => {
    requests.push(request);
    const handler = handlers[requests.length - 1];
    if (handler === undefined) {
      response.writeHead(500).end(JSON.stringify({ error: "the script has no more answers" }));
      return;
    }
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function frame(seq: number, type: string, fields: Record<string, unknown> = {}): string {
  const data = { run_id: "r1", seq, type, at: "2026-01-01T00:00:00Z", ...fields };
  return `id: ${seq}\nevent: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

function stream(response: ServerResponse, body: string, end = true): void {
  response.writeHead(200, { "Content-Type": "text/event-stream" });
  response.write(body);
  if (end) response.end();
}

test("the tail reconnects through every fault and yields each seq once", async () => {
  const server = await scripted([
    // Two events, then the connection ends without `done`.
    (_, res) => stream(res, "retry: 1000\n\n" + frame(1, "run_started") + frame(2, "text_delta", { step: 1, text: "a" })),
    // A replay that overlaps (2 again), a keep-alive comment, then a gap (5 before 4).
    (_, res) => stream(res, frame(2, "text_delta", { step: 1, text: "a" }) + frame(3, "text_delta", { step: 1, text: "b" }) + ": keep-alive\n\n" + frame(5, "done", { status: "succeeded" })),
    // The database is away: a 503 with a hint of no wait, so that the test stays fast.
    (_, res) => res.writeHead(503, { "Content-Type": "application/json", "Retry-After": "0" }).end(JSON.stringify({ error: "the database cannot be reached" })),
    // What an SSE client gets during an outage: a comment and a retry hint alone.
    (_, res) => stream(res, ": the database is unavailable\nretry: 20\n\n"),
    // The rest, with half a frame at the end that the connection cuts: it must be discarded.
    (_, res) => stream(res, frame(4, "text_delta", { step: 1, text: "c" }) + "id: 5\nevent: done\ndata: {\"seq\":5,"),
    (_, res) => stream(res, frame(5, "done", { status: "succeeded", response: "abc" })),
  ]);
  try {
    const wingman = new Wingman({ baseUrl: server.url, apiKey: "k" });
    const events: RunEvent[] = [];
    for await (const event of wingman.tail("r1")) events.push(event);
    assert.deepEqual(events.map((e) => e.seq), [1, 2, 3, 4, 5]);
    assert.deepEqual(events.map((e) => e.type), ["run_started", "text_delta", "text_delta", "text_delta", "done"]);
    const done = events[4];
    assert.ok(done?.type === "done");
    assert.equal(done.response, "abc");
    assert.deepEqual(
      server.requests.map((r) => r.headers["last-event-id"]),
      ["0", "2", "3", "3", "3", "4"],
    );
    for (const request of server.requests) {
      assert.equal(request.url, "/runs/r1/events");
      assert.equal(request.headers.accept, "text/event-stream");
      assert.equal(request.headers.authorization, "Bearer k");
    }
  } finally {
    await server.close();
  }
});

test("a 204 ends the tail at once, and `after` is sent as Last-Event-ID", async () => {
  const server = await scripted([(_, res) => res.writeHead(204).end()]);
  try {
    const wingman = new Wingman({ baseUrl: server.url, apiKey: "k" });
    const events: RunEvent[] = [];
    for await (const event of wingman.tail("r1", { after: 42 })) events.push(event);
    assert.deepEqual(events, []);
    assert.equal(server.requests[0]?.headers["last-event-id"], "42");
  } finally {
    await server.close();
  }
});

test("leaving the loop closes the connection", async () => {
  let closed: Promise<void> | undefined;
  const server = await scripted([
    (req, res) => {
      closed = new Promise((resolve) => res.on("close", () => resolve()));
      stream(res, frame(1, "run_started") + frame(2, "step_started", { step: 1 }), false);
      void req;
    },
  ]);
  try {
    const wingman = new Wingman({ baseUrl: server.url, apiKey: "k" });
    for await (const event of wingman.tail("r1")) {
      if (event.seq === 1) break;
    }
    await closed;
  } finally {
    await server.close();
  }
});

test("an error that retrying cannot mend is thrown at once; an abort stops the tail", async () => {
  const server = await scripted([
    (_, res) => res.writeHead(401, { "Content-Type": "application/json" }).end(JSON.stringify({ error: "a token is needed" })),
    (_, res) => stream(res, frame(1, "run_started"), false),
  ]);
  try {
    const wingman = new Wingman({ baseUrl: server.url, apiKey: "k" });
    await assert.rejects(
      async () => {
        for await (const _ of wingman.tail("r1")) {
          // Nothing is yielded.
        }
      },
      { name: "UnauthorizedError", status: 401, message: "a token is needed" },
    );
    const controller = new AbortController();
    await assert.rejects(async () => {
      for await (const event of wingman.tail("r1", { signal: controller.signal })) {
        if (event.seq === 1) controller.abort();
      }
    }, { name: "AbortError" });
  } finally {
    await server.close();
  }
});
