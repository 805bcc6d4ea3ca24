/**
 * A tail that outlives its server: the server is SIGKILLed in the middle of a streaming run and
 * started again on the same port and database while the separate worker goes on writing the
 * run's events. The tail must reconnect by itself and yield every `seq` exactly once.
 */

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Wingman, type RunEvent } from "../src/index.js";
import { scriptedAgent, Stack } from "./harness.js";

let stack: Stack;

before(async () => {
  stack = await new Stack().start();
});

after(async () => {
  await stack?.stop();
});

test("a tail survives a SIGKILL and restart of the server with every seq once", async (t) => {
  // Counts the tail's connections, to see that it did reconnect.
  let streams = 0;
  const wingman = new Wingman({
    baseUrl: stack.url,
    fetch: (input, init) => {
      if (new Headers(init?.headers).get("accept") === "text/event-stream") streams += 1;
      return fetch(input, init);
    },
  });
  // About 4 s of text, streamed a word at a time: long enough to kill the server mid-stream.
  const words = Array.from({ length: 80 }, (_, i) => `word${i}`);
  const agent = await wingman.createAgent(
    scriptedAgent("slow", { script: [{ text: words.join(" ") }], chunk_delay_ms: 50 }),
  );
  const session = await wingman.createSession({ agent_id: agent.id });
  const { run_id } = await wingman.sendMessage(session.id, { message: "stream slowly" });

  const events: RunEvent[] = [];
  let killedAfter = 0;
  let restart: Promise<void> | undefined;
  let restarted = false;
  let afterRestart = 0;
  for await (const event of wingman.tail(run_id)) {
    events.push(event);
    if (restarted) afterRestart += 1;
    if (restart === undefined && event.type === "text_delta") {
      // The first streamed text: kill the server now, and start it again a moment later, while
      // this loop goes on asking the tail for more.
      killedAfter = event.seq;
      restart = (async () => {
        await stack.killServer();
        await new Promise((r) => setTimeout(r, 300));
        await stack.startServer();
        restarted = true;
      })();
    }
  }
  await restart;

  t.diagnostic(`${events.length} events, killed after seq ${killedAfter}, ${afterRestart} after the restart, ${streams} connections`);
  assert.ok(killedAfter > 0, "the server was killed during the stream");
  const seqs = events.map((e) => e.seq);
  assert.deepEqual(
    seqs,
    seqs.map((_, i) => i + 1),
    "every seq once, in order",
  );
  const last = events.at(-1);
  assert.ok(last?.type === "done");
  assert.equal(last.status, "succeeded");
  assert.ok(afterRestart > 0, "events written after the restart reached the tail");
  assert.ok(streams >= 2, `the tail reconnected (${streams} connections)`);
  const text = events.map((e) => (e.type === "text_delta" ? e.text : "")).join("");
  assert.equal(text, words.join(" "));

  // The tail saw exactly the run's log, as the JSON reading of it pages through it.
  const log: unknown[] = [];
  let afterSeq = 0;
  for (;;) {
    const { data, response } = await wingman.api.GET("/runs/{id}/events", {
      params: { path: { id: run_id }, query: { after: afterSeq, limit: 7 } },
    });
    // The answer is JSON here (no `Accept: text/event-stream`), an array of events.
    log.push(...((data ?? []) as unknown[]));
    const next = response.headers.get("wingman-next-after");
    if (next === null) break;
    afterSeq = Number(next);
  }
  assert.deepEqual(events, log);
  assert.deepEqual(await wingman.runEvents(run_id), log);
});
