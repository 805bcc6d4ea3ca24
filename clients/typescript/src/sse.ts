/**
 * A reconnecting reader of an event log's SSE stream (`GET /runs/{id}/events`,
 * `GET /fleet-runs/{id}/events`).
 *
 * The server numbers a log's events 1, 2, 3, … and replays every event after the
 * `Last-Event-ID` a client sends, so a reader that remembers the last `seq` it handed out can
 * reconnect after any failure (a dropped connection, a server restart, a database outage) and
 * carry on with exactly the rest. Duplicates (a replay overlapping what was read) are dropped and
 * a gap (which the server never makes, but a proxy could) is closed by reconnecting from the last
 * `seq`, so the consumer sees every `seq` once and in order.
 */

import { createParser, type EventSourceMessage } from "eventsource-parser";
import { errorFromResponse, isAbortError, isRetryable, WingmanError } from "./errors.js";

/** Options of a tail. */
export interface TailOptions {
  /** Start after this `seq` (0, the default, is the log's start). */
  after?: number;
  /** Stops the tail: the iterator then throws the signal's reason. */
  signal?: AbortSignal;
  /**
   * How long the tail keeps trying to reconnect while every attempt fails (the server is down, or
   * answers 503), in milliseconds, before it throws the last error. Default: 5 minutes. A stream
   * that stays open (a run waiting for a person, say) is no failure and never times out.
   */
  reconnectTimeoutMs?: number;
}

/** What a tail needs from the client that owns it. */
export interface TailTarget {
  /** The stream's absolute URL. */
  url: string;
  /** Headers of every request (authorization). */
  headers: Record<string, string>;
  fetch: typeof fetch;
}

/** Backoff of failed connections: 200 ms doubling up to 5 s, with jitter so many tails spread out. */
function backoff(failures: number): number {
  const base = Math.min(5000, 200 * 2 ** Math.min(failures, 10));
  return base / 2 + Math.random() * (base / 2);
}

/** Sleeps, waking early with the signal's reason when it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** A frame whose `data` is not the JSON event the server promises: the stream is not a log's. */
export class EventStreamError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EventStreamError";
  }
}

/**
 * Yields a log's events from its SSE stream, reconnecting by itself, until the terminal `done`
 * (or a `204`, which says the log ended and everything after `after` was read).
 */
export async function* tailLog<E extends { seq: number; type: string }>(
  target: TailTarget,
  options: TailOptions = {},
): AsyncGenerator<E, void, undefined> {
  const { signal } = options;
  const reconnectTimeoutMs = options.reconnectTimeoutMs ?? 5 * 60_000;
  let last = options.after ?? 0;
  // The server opens every stream with `retry: 1000`; this is the pause before reconnecting to a
  // stream that ended without an event (the hint a database outage answers with).
  let retryHintMs = 1000;
  let failures = 0;
  let failingSince: number | undefined;
  let lastError: unknown;

  const failed = async (error: unknown, waitMs?: number) => {
    lastError = error;
    failingSince ??= Date.now();
    if (Date.now() - failingSince > reconnectTimeoutMs) throw lastError;
    await sleep(waitMs ?? backoff(failures), signal);
    failures += 1;
  };

  for (;;) {
    signal?.throwIfAborted();
    // One controller per connection, so that leaving the loop (the consumer's `break`, a `done`,
    // an error) closes the connection instead of leaving the server streaming to nobody.
    const connection = new AbortController();
    const onAbort = () => connection.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      let response: Response;
      try {
        response = await target.fetch(target.url, {
          method: "GET",
          headers: { ...target.headers, Accept: "text/event-stream", "Last-Event-ID": String(last) },
          signal: connection.signal,
          cache: "no-store",
        });
      } catch (error) {
        if (signal?.aborted || isAbortError(error)) throw signal?.reason ?? error;
        await failed(error);
        continue;
      }
      if (response.status === 204) return;
      if (!response.ok) {
        const error = await errorFromResponse(response);
        if (!isRetryable(error)) throw error;
        const hint = error.retryAfterSeconds;
        await failed(error, hint === undefined ? undefined : hint * 1000);
        continue;
      }
      if (response.body === null) {
        await failed(new WingmanError(response.status, "the event stream had no body"));
        continue;
      }

      const pending: E[] = [];
      let malformed: string | undefined;
      const parser = createParser({
        onEvent(message: EventSourceMessage) {
          try {
            const event = JSON.parse(message.data) as E;
            if (message.id !== undefined && message.id !== "") event.seq = Number(message.id);
            if (!Number.isSafeInteger(event.seq)) throw new Error("no seq");
            pending.push(event);
          } catch {
            malformed ??= message.data.slice(0, 200);
          }
        },
        onRetry(ms: number) {
          retryHintMs = ms;
        },
        // Keep-alive comments carry nothing.
        onComment() {},
      });
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let received = false;
      let gap = false;
      try {
        for (;;) {
          let chunk: ReadableStreamReadResult<Uint8Array>;
          try {
            chunk = await reader.read();
          } catch (error) {
            // The connection broke mid-stream; a frame it cut is discarded with the parser.
            if (signal?.aborted) throw signal.reason;
            lastError = error;
            break;
          }
          if (chunk.done) break;
          parser.feed(decoder.decode(chunk.value, { stream: true }));
          if (malformed !== undefined) {
            throw new EventStreamError(`an event stream frame is not a JSON event: ${malformed}`);
          }
          while (pending.length > 0) {
            const event = pending.shift() as E;
            if (event.seq <= last) continue;
            if (event.seq !== last + 1) {
              gap = true;
              break;
            }
            last = event.seq;
            received = true;
            failures = 0;
            failingSince = undefined;
            yield event;
            if (event.type === "done") return;
          }
          if (gap) break;
        }
      } finally {
        reader.releaseLock();
      }
      // The stream ended without `done`: the server went away, or answered an outage with a
      // retry hint alone. A stream that brought events is resumed at once (the next attempt's
      // failures back off); one that brought none waits for the server's hint.
      if (!received && !gap) {
        await failed(lastError ?? new WingmanError(503, "the event stream ended without an event"), retryHintMs);
      }
    } finally {
      signal?.removeEventListener("abort", onAbort);
      connection.abort();
    }
  }
}
