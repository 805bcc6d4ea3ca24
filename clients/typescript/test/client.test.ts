/**
 * The client against a real server and a separate worker: messages, fleets, approvals, retried
 * submissions and typed errors.
 */

import assert from "node:assert/strict";
import { connect, createServer, type Server, type Socket } from "node:net";
import { after, before, describe, test } from "node:test";
import {
  NotFoundError,
  UnauthorizedError,
  UnprocessableEntityError,
  Wingman,
  WingmanError,
  type FleetRunEvent,
  type RunEvent,
} from "../src/index.js";
import { scriptedAgent, Stack } from "./harness.js";

let stack: Stack;
let wingman: Wingman;

before(async () => {
  stack = await new Stack().start();
  // No key is passed: the client reads WINGMAN_API_KEY, which the harness set to the token.
  wingman = new Wingman({ baseUrl: stack.url });
});

after(async () => {
  await stack?.stop();
});

/** Asserts that events are numbered 1, 2, 3, … with no gap or repeat and end with `done`. */
function assertWholeLog(events: Array<{ seq: number; type: string }>): void {
  assert.deepEqual(
    events.map((e) => e.seq),
    events.map((_, i) => i + 1),
  );
  assert.equal(events.at(-1)?.type, "done");
}

describe("messages", () => {
  test("an agent, a session, a message tailed to done", async () => {
    const agent = await wingman.createAgent(scriptedAgent("echo"));
    const session = await wingman.createSession({ agent_id: agent.id });
    const accepted = await wingman.sendMessage(session.id, { message: "hello from typescript" });
    assert.equal(accepted.status, "queued");

    const events: RunEvent[] = [];
    let text = "";
    for await (const event of wingman.tail(accepted.run_id)) {
      events.push(event);
      assert.equal(event.run_id, accepted.run_id);
      assert.equal(typeof event.at, "string");
      if (event.type === "text_delta") text += event.text;
    }
    assertWholeLog(events);
    const done = events.at(-1);
    assert.ok(done?.type === "done");
    assert.equal(done.status, "succeeded");
    assert.equal(done.response, "hello from typescript");
    assert.equal(text, "hello from typescript");

    const run = await wingman.waitFor(accepted.run_id, { timeoutMs: 10_000 });
    assert.equal(run.status, "succeeded");
    assert.equal(run.response, "hello from typescript");

    // A tail of a finished run from its end reads nothing (the server's 204) and ends at once.
    const rest: RunEvent[] = [];
    for await (const event of wingman.tail(accepted.run_id, { after: done.seq })) rest.push(event);
    assert.deepEqual(rest, []);
  });

  test("the typed client reaches every operation, with typed answers", async () => {
    const { data: health } = await wingman.api.GET("/health");
    assert.ok(health);
    const { data: agents } = await wingman.api.GET("/agents");
    assert.ok(Array.isArray(agents) && agents.length >= 1);
    const { data: runs } = await wingman.api.GET("/runs", { params: { query: { limit: 5 } } });
    assert.ok(runs && Array.isArray(runs.runs));
  });
});

describe("fleets", () => {
  test("a fleet run of 20 tasks followed to its end", async () => {
    const agent = await wingman.createAgent(scriptedAgent("fleet-echo"));
    const fleet = await wingman.createFleet({ name: "twenty", agent_id: agent.id });
    const tasks = Array.from({ length: 20 }, (_, i) => ({ message: `task ${i}` }));
    const accepted = await wingman.runFleet(fleet.id, tasks);

    const events: FleetRunEvent[] = [];
    for await (const event of wingman.tailFleetRun(accepted.fleet_run_id)) events.push(event);
    assertWholeLog(events);
    const results = events.filter((e) => e.type === "result");
    assert.equal(results.length, 20);
    const byTask = new Map(results.map((r) => (r.type === "result" ? [r.task_index, r] : [-1, r])));
    for (let i = 0; i < 20; i++) {
      const result = byTask.get(i);
      assert.ok(result?.type === "result", `task ${i} has a result`);
      assert.equal(result.status, "succeeded");
      assert.equal(result.response, `task ${i}`);
    }
    const done = events.at(-1);
    assert.ok(done?.type === "done");
    assert.equal(done.status, "succeeded");
    assert.equal(done.succeeded, 20);

    const fleetRun = await wingman.waitForFleetRun(accepted.fleet_run_id, { timeoutMs: 10_000 });
    assert.equal(fleetRun.status, "succeeded");
  });
});

describe("approvals", () => {
  test("a tool call approved through the client", async () => {
    const agent = await wingman.createAgent({
      ...scriptedAgent("careful", {
        script: [{ tool_calls: [{ name: "bash", input: { command: "echo hi" } }] }, { text: "ran it" }],
      }),
      tools: ["bash"],
      approve_tools: ["bash"],
    });
    const session = await wingman.createSession({ agent_id: agent.id });
    const { run_id } = await wingman.sendMessage(session.id, { message: "run echo" });

    const seen: string[] = [];
    let output: string | undefined;
    let approved = false;
    for await (const event of wingman.tail(run_id)) {
      seen.push(event.type);
      if (event.type === "approval_requested") {
        assert.equal(event.calls.length, 1);
        assert.equal(event.calls[0]?.name, "bash");
        const run = await wingman.getRun(run_id);
        assert.equal(run.status, "waiting");
        await wingman.approve(
          run_id,
          event.calls.map((call) => ({ call_id: call.call_id, decision: "approve" as const })),
        );
        approved = true;
      }
      if (event.type === "tool_result") output = event.output;
    }
    assert.ok(approved);
    assert.ok(seen.includes("approval_decided"));
    assert.match(output ?? "", /hi/);
    const run = await wingman.waitFor(run_id, { timeoutMs: 10_000 });
    assert.equal(run.status, "succeeded");
    assert.equal(run.response, "ran it");
  });
});

describe("approvals, retried", () => {
  test("an approval whose answer was lost is retried and not refused", async () => {
    const agent = await wingman.createAgent({
      ...scriptedAgent("careful-too", {
        script: [{ tool_calls: [{ name: "bash", input: { command: "echo again" } }] }, { text: "done" }],
      }),
      tools: ["bash"],
      approve_tools: ["bash"],
    });
    const session = await wingman.createSession({ agent_id: agent.id });
    const { run_id } = await wingman.sendMessage(session.id, { message: "run echo" });
    let calls: Array<{ call_id: string }> = [];
    for await (const event of wingman.tail(run_id)) {
      if (event.type === "approval_requested") {
        calls = event.calls;
        break;
      }
    }
    const proxy = await droppingProxy(stack.port);
    try {
      const through = new Wingman({ baseUrl: `http://127.0.0.1:${proxy.port}` });
      // The first attempt is decided by the server but its answer is lost; the retry is a 409
      // (the run no longer waits), which the client recognises from the run's log.
      const run = await through.approve(
        run_id,
        calls.map((call) => ({ call_id: call.call_id, decision: "approve" as const })),
      );
      assert.ok(proxy.connections() >= 2, "the first connection was cut and the client retried");
      assert.equal(run.id, run_id);
    } finally {
      proxy.server.close();
    }
    assert.equal((await wingman.waitFor(run_id, { timeoutMs: 10_000 })).status, "succeeded");
  });
});

/**
 * A proxy whose first connection carries the request to the server and then, once the server has
 * begun to answer, is cut without passing the answer on: the request took effect, the client
 * never learns it. Later connections are passed through whole.
 */
function droppingProxy(targetPort: number): Promise<{ server: Server; port: number; connections: () => number }> {
  let count = 0;
  const server = createServer((client: Socket) => {
    count += 1;
    const first = count === 1;
    const upstream = connect(targetPort, "127.0.0.1");
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    client.pipe(upstream);
    if (first) {
      upstream.once("data", () => {
        client.destroy();
        upstream.destroy();
      });
    } else {
      upstream.pipe(client);
    }
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      resolve({ server, port, connections: () => count });
    });
  });
}

describe("idempotent submissions", () => {
  test("a submission retried after a dropped connection makes one run", async () => {
    const agent = await wingman.createAgent(scriptedAgent("once"));
    const session = await wingman.createSession({ agent_id: agent.id });
    const proxy = await droppingProxy(stack.port);
    try {
      const through = new Wingman({ baseUrl: `http://127.0.0.1:${proxy.port}` });
      const accepted = await through.sendMessage(session.id, { message: "exactly once" });
      assert.ok(proxy.connections() >= 2, "the first connection was cut and the client retried");

      const { data } = await wingman.api.GET("/runs", { params: { query: { session_id: session.id } } });
      assert.equal(data?.runs.length, 1);
      assert.equal(data?.runs[0]?.id, accepted.run_id);
      assert.equal((await wingman.waitFor(accepted.run_id, { timeoutMs: 10_000 })).status, "succeeded");
    } finally {
      proxy.server.close();
    }
  });

  test("the same key given by the caller returns the same run", async () => {
    const agent = await wingman.createAgent(scriptedAgent("same-key"));
    const session = await wingman.createSession({ agent_id: agent.id });
    const key = `job-${Date.now()}`;
    const first = await wingman.sendMessage(session.id, { message: "one" }, { idempotencyKey: key });
    const second = await wingman.sendMessage(session.id, { message: "one" }, { idempotencyKey: key });
    assert.equal(second.run_id, first.run_id);
    // The same key with another body is refused, with the server's reason.
    await assert.rejects(
      wingman.sendMessage(session.id, { message: "two" }, { idempotencyKey: key }),
      UnprocessableEntityError,
    );
  });
});

/** The server's own `error` text for a request, read without the client. */
async function serverMessage(path: string, init: RequestInit = {}): Promise<{ status: number; error: string }> {
  const response = await fetch(`${stack.url}${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${stack.token}`, "Content-Type": "application/json", ...init.headers },
  });
  const body = (await response.json()) as { error: string };
  return { status: response.status, error: body.error };
}

describe("errors", () => {
  test("a 404 is a NotFoundError with the server's message", async () => {
    const id = "01ARZ3NDEKTSV4RRFFQ69G5FAV";
    const expected = await serverMessage(`/runs/${id}`);
    assert.equal(expected.status, 404);
    await assert.rejects(wingman.getRun(id), (error: unknown) => {
      assert.ok(error instanceof NotFoundError);
      assert.ok(error instanceof WingmanError);
      assert.equal(error.status, 404);
      assert.equal(error.message, expected.error);
      assert.notEqual(error.message, "");
      return true;
    });
    // The same through the typed client of any operation, and through a tail.
    await assert.rejects(
      wingman.api.GET("/sessions/{id}", { params: { path: { id } } }),
      (error: unknown) => error instanceof NotFoundError && error.status === 404,
    );
    await assert.rejects(async () => {
      for await (const _ of wingman.tail(id)) {
        // Nothing is yielded.
      }
    }, NotFoundError);
  });

  test("a 422 is an UnprocessableEntityError with the server's message", async () => {
    const body = { name: "bad", provider: "scripted", model: "echo", no_such_field: true };
    const expected = await serverMessage("/agents", { method: "POST", body: JSON.stringify(body) });
    assert.equal(expected.status, 422);
    await assert.rejects(wingman.createAgent(body as never), (error: unknown) => {
      assert.ok(error instanceof UnprocessableEntityError);
      assert.equal(error.status, 422);
      assert.equal(error.message, expected.error);
      assert.match(error.message, /no_such_field/);
      return true;
    });
  });

  test("a wrong key is an UnauthorizedError", async () => {
    const stranger = new Wingman({ baseUrl: stack.url, apiKey: "not-the-token" });
    await assert.rejects(stranger.api.GET("/agents"), UnauthorizedError);
  });
});
