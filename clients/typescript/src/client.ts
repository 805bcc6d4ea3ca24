/**
 * The Wingman client: every operation of the API through a typed openapi-fetch client
 * (`wingman.api`), and on top of it the calls most programs need — submissions that are safe to
 * retry, tails that survive restarts, and `waitFor`.
 */

import createClient, { type Client, type Middleware } from "openapi-fetch";
import {
  ConflictError,
  errorFromResponse,
  isAbortError,
  isRetryable,
  WaitTimeoutError,
  WingmanError,
} from "./errors.js";
import type { FleetRunEvent, RunEvent } from "./events.js";
import type { paths } from "./schema.js";
import { sleep, tailLog, type TailOptions } from "./sse.js";

type Json<T> = T extends { content: { "application/json": infer B } } ? B : never;

/** A run: `GET /runs/{id}`. */
export type Run = Json<paths["/runs/{id}"]["get"]["responses"][200]>;
/** The body of `POST /agents`. */
export type NewAgent = Json<paths["/agents"]["post"]["requestBody"]>;
/** An agent. */
export type Agent = Json<paths["/agents"]["post"]["responses"][201]>;
/** The body of `POST /sessions`. */
export type NewSession = Json<NonNullable<paths["/sessions"]["post"]["requestBody"]>>;
/** A session. */
export type Session = Json<paths["/sessions"]["post"]["responses"][201]>;
/** The body of `POST /sessions/{id}/message`. */
export type MessageBody = Json<paths["/sessions/{id}/message"]["post"]["requestBody"]>;
/** The answer to a message: the run it made, queued. */
export type MessageAccepted = Json<paths["/sessions/{id}/message"]["post"]["responses"][202]>;
/** The body of `POST /fleets`. */
export type NewFleet = Json<paths["/fleets"]["post"]["requestBody"]>;
/** A fleet. */
export type Fleet = Json<paths["/fleets"]["post"]["responses"][201]>;
/** The body of `POST /fleets/{id}/run`. */
export type RunFleetBody = Json<paths["/fleets/{id}/run"]["post"]["requestBody"]>;
/** One task of a fleet run. */
export type FleetTask = RunFleetBody["tasks"][number];
/** The answer to a fleet run: the fleet run, queued. */
export type FleetRunAccepted = Json<paths["/fleets/{id}/run"]["post"]["responses"][202]>;
/** A fleet run with a page of its tasks: `GET /fleet-runs/{id}`. */
export type FleetRun = Json<paths["/fleet-runs/{id}"]["get"]["responses"][200]>;
/** One decision of `POST /runs/{id}/approve`. */
export type ApprovalDecision = Json<paths["/runs/{id}/approve"]["post"]["requestBody"]>["decisions"][number];

/** Options of a client. */
export interface WingmanOptions {
  /** The server's URL. Default: `WINGMAN_SERVER` (on Node), else `http://127.0.0.1:2323`. */
  baseUrl?: string;
  /**
   * The token or API key, sent as `Authorization: Bearer`. Default: `WINGMAN_API_KEY` when the
   * environment has one (Node); a browser passes it here.
   */
  apiKey?: string;
  /** The `fetch` to use (a test's, a proxy's); default: the global one. */
  fetch?: typeof fetch;
  /** Headers added to every request. */
  headers?: Record<string, string>;
  /**
   * How often a submission is sent again after a network failure, a 5xx or a 429, always with the
   * same `Idempotency-Key` (default 5; 0 disables).
   */
  maxRetries?: number;
}

/** Options of a submission. */
export interface SubmitOptions {
  /**
   * The `Idempotency-Key`: one is made when none is given, and every retry of the call sends the
   * same one, so the server makes one run however often the request reaches it. Pass your own to
   * make a submission idempotent across processes too (a job ID, say).
   */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

/** Options of `waitFor`. */
export interface WaitOptions {
  /** Give up after this many milliseconds with a `WaitTimeoutError` (default: no limit). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** The statuses at which a run has ended. */
const TERMINAL_RUN = new Set(["succeeded", "failed", "cancelled", "interrupted"]);
const TERMINAL_FLEET_RUN = new Set(["succeeded", "failed", "cancelled"]);

/** Reads a variable of the environment where there is one (Node); a browser has none. */
function env(name: string): string | undefined {
  const proc = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  const value = proc?.env?.[name];
  return value === undefined || value === "" ? undefined : value;
}

/**
 * A fresh idempotency key. `crypto.randomUUID` is in every browser (in secure contexts) and in
 * Node from 19 on; elsewhere (Node 18, a page served over plain HTTP) a key made of the clock and
 * `Math.random` is unique enough for its purpose, which is telling one submission from another.
 */
export function newIdempotencyKey(): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (typeof c?.randomUUID === "function") return c.randomUUID();
  const random = () => Math.random().toString(16).slice(2, 10).padEnd(8, "0");
  return `${Date.now().toString(16)}-${random()}-${random()}-${random()}`;
}

/** Backoff of retried submissions: 250 ms doubling up to 8 s, with jitter. */
function retryDelay(attempt: number, error: unknown): number {
  if (error instanceof WingmanError && error.retryAfterSeconds !== undefined) {
    return Math.min(30_000, error.retryAfterSeconds * 1000);
  }
  const base = Math.min(8000, 250 * 2 ** attempt);
  return base / 2 + Math.random() * (base / 2);
}

/** A Wingman server's API. */
export class Wingman {
  /**
   * The typed client of every operation, e.g. `wingman.api.GET("/runs/{id}", { params: { path:
   * { id } } })`. An error answer throws the `WingmanError` of its status (it never comes back
   * as `{ error }`), and `data` is the parsed answer.
   */
  readonly api: Client<paths>;
  /** The server's URL, without a trailing slash. */
  readonly baseUrl: string;
  readonly #fetch: typeof fetch;
  readonly #headers: Record<string, string>;
  readonly #maxRetries: number;

  constructor(options: WingmanOptions = {}) {
    this.baseUrl = (options.baseUrl ?? env("WINGMAN_SERVER") ?? "http://127.0.0.1:2323").replace(/\/+$/, "");
    const apiKey = options.apiKey ?? env("WINGMAN_API_KEY");
    this.#headers = { ...options.headers };
    if (apiKey !== undefined) this.#headers.Authorization = `Bearer ${apiKey}`;
    // The global fetch is looked up at each call rather than captured, so that a test or a
    // polyfill that replaces it later is used.
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#maxRetries = options.maxRetries ?? 5;
    this.api = createClient<paths>({ baseUrl: this.baseUrl, fetch: this.#fetch, headers: this.#headers });
    const throwOnError: Middleware = {
      async onResponse({ response }) {
        if (!response.ok) throw await errorFromResponse(response);
        return undefined;
      },
    };
    this.api.use(throwOnError);
  }

  /**
   * Sends a submission, and sends it again with the same `Idempotency-Key` after a failure that
   * may be transient (no answer, a 5xx, a 429), waiting longer each time (or what `Retry-After`
   * says). The key makes the retries safe: the server answers a repeat with the first run.
   */
  async #submit<T>(send: (key: string) => Promise<{ data?: T }>, options: SubmitOptions = {}): Promise<T> {
    const key = options.idempotencyKey ?? newIdempotencyKey();
    for (let attempt = 0; ; attempt++) {
      try {
        const { data } = await send(key);
        return data as T;
      } catch (error) {
        if (options.signal?.aborted) throw options.signal.reason;
        if (attempt >= this.#maxRetries || !isRetryable(error)) throw error;
        await sleep(retryDelay(attempt, error), options.signal);
      }
    }
  }

  /** `GET /health`. */
  async health() {
    return (await this.api.GET("/health")).data!;
  }

  /** Creates an agent (`POST /agents`). */
  async createAgent(agent: NewAgent): Promise<Agent> {
    return (await this.api.POST("/agents", { body: agent })).data!;
  }

  /** An agent (`GET /agents/{id}`). */
  async getAgent(agentId: string): Promise<Agent> {
    return (await this.api.GET("/agents/{id}", { params: { path: { id: agentId } } })).data!;
  }

  /** Creates a session (`POST /sessions`). */
  async createSession(session: NewSession = {} as NewSession): Promise<Session> {
    return (await this.api.POST("/sessions", { body: session })).data!;
  }

  /** A session with its history (`GET /sessions/{id}`). */
  async getSession(sessionId: string) {
    return (await this.api.GET("/sessions/{id}", { params: { path: { id: sessionId } } })).data!;
  }

  /**
   * Sends a message to a session's agent (`POST /sessions/{id}/message`): the run it made,
   * queued. Retried with one `Idempotency-Key`, so it makes one run however often it is sent.
   */
  async sendMessage(sessionId: string, body: MessageBody, options: SubmitOptions = {}): Promise<MessageAccepted> {
    return this.#submit(
      (key) =>
        this.api.POST("/sessions/{id}/message", {
          params: { path: { id: sessionId }, header: { "Idempotency-Key": key } },
          body,
          signal: options.signal,
        }) as Promise<{ data?: MessageAccepted }>,
      options,
    );
  }

  /** A run (`GET /runs/{id}`). */
  async getRun(runId: string): Promise<Run> {
    return (await this.api.GET("/runs/{id}", { params: { path: { id: runId } } })).data!;
  }

  /** Cancels a queued, waiting or running run (`POST /runs/{id}/cancel`); a finished one is a `ConflictError`. */
  async cancelRun(runId: string) {
    return (await this.api.POST("/runs/{id}/cancel", { params: { path: { id: runId } } })).data!;
  }

  /**
   * Every event of a run's log after `after`, as JSON (`GET /runs/{id}/events`, read page by page
   * with `Wingman-Next-After`). For a live view, use `tail`.
   */
  async runEvents(runId: string, options: { after?: number } = {}): Promise<RunEvent[]> {
    const events: RunEvent[] = [];
    let after = options.after ?? 0;
    for (;;) {
      const { data, response } = await this.api.GET("/runs/{id}/events", {
        params: { path: { id: runId }, query: { after, limit: 10_000 } },
      });
      events.push(...((data ?? []) as unknown as RunEvent[]));
      const next = response.headers.get("wingman-next-after");
      if (next === null) return events;
      after = Number(next);
    }
  }

  /** Creates a fleet (`POST /fleets`). */
  async createFleet(fleet: NewFleet): Promise<Fleet> {
    return (await this.api.POST("/fleets", { body: fleet })).data!;
  }

  /**
   * Runs a fleet on tasks (`POST /fleets/{id}/run`): the fleet run, queued. Retried with one
   * `Idempotency-Key`, so it makes one fleet run however often it is sent.
   */
  async runFleet(
    fleetId: string,
    tasks: FleetTask[],
    options: SubmitOptions & Omit<Partial<RunFleetBody>, "tasks"> = {},
  ): Promise<FleetRunAccepted> {
    const { idempotencyKey: _key, signal, ...rest } = options;
    const body = { ...rest, tasks } as RunFleetBody;
    return this.#submit(
      (key) =>
        this.api.POST("/fleets/{id}/run", {
          params: { path: { id: fleetId }, header: { "Idempotency-Key": key } },
          body,
          signal,
        }) as Promise<{ data?: FleetRunAccepted }>,
      options,
    );
  }

  /** A fleet run with the first page of its tasks (`GET /fleet-runs/{id}`). */
  async getFleetRun(fleetRunId: string, query: { after?: number; limit?: number } = {}): Promise<FleetRun> {
    return (
      await this.api.GET("/fleet-runs/{id}", { params: { path: { id: fleetRunId }, query } })
    ).data!;
  }

  /**
   * Answers a run that waits for a person (`POST /runs/{id}/approve`): one decision per call of
   * its `approval_requested`. The route takes no `Idempotency-Key`; a decision is naturally
   * idempotent instead, so when a retry is refused with 409 (the run no longer waits) because the
   * first attempt did reach the server, the run's log shows those calls decided and the run is
   * returned as if the first answer had arrived.
   */
  async approve(runId: string, decisions: ApprovalDecision[], options: { signal?: AbortSignal } = {}): Promise<Run> {
    let retried = false;
    try {
      return await this.#submit(async () => {
        try {
          return (await this.api.POST("/runs/{id}/approve", {
            params: { path: { id: runId } },
            body: { decisions },
            signal: options.signal,
          })) as { data?: Run };
        } catch (error) {
          if (isRetryable(error)) retried = true;
          throw error;
        }
      }, options);
    } catch (error) {
      if (!(retried && error instanceof ConflictError)) throw error;
      const wanted = new Set(decisions.map((d) => d.call_id));
      const decided = (await this.runEvents(runId)).some(
        (event) =>
          event.type === "approval_decided" && event.decisions.some((d) => wanted.has(d.call_id)),
      );
      if (!decided) throw error;
      return this.getRun(runId);
    }
  }

  /**
   * Follows a run's events (`GET /runs/{id}/events` as SSE) until its `done`: an async iterator
   * that reconnects by itself with `Last-Event-ID` after a dropped connection, a server restart
   * or a database outage, and yields every `seq` once, in order. A run that has ended and whose
   * events after `after` were all read ends the iteration at once (the server's `204`).
   */
  tail(runId: string, options: TailOptions = {}): AsyncGenerator<RunEvent, void, undefined> {
    return tailLog<RunEvent>(
      { url: `${this.baseUrl}/runs/${encodeURIComponent(runId)}/events`, headers: this.#headers, fetch: this.#fetch },
      options,
    );
  }

  /** Follows a fleet run's events (`fleet_queued`, a `result` per task, `done`) like `tail`. */
  tailFleetRun(fleetRunId: string, options: TailOptions = {}): AsyncGenerator<FleetRunEvent, void, undefined> {
    return tailLog<FleetRunEvent>(
      {
        url: `${this.baseUrl}/fleet-runs/${encodeURIComponent(fleetRunId)}/events`,
        headers: this.#headers,
        fetch: this.#fetch,
      },
      options,
    );
  }

  /**
   * Waits for a run to end and returns it (`succeeded`, `failed`, `cancelled` or
   * `interrupted`). It follows the run's events rather than polling, so it returns as soon as
   * the run ends, and it rides out restarts like `tail`. A run waiting for a person is not ended:
   * give a `timeoutMs`, or answer it first.
   */
  async waitFor(runId: string, options: WaitOptions = {}): Promise<Run> {
    return this.#withTimeout(options, `run ${runId}`, async (signal) => {
      const run = await this.getRun(runId);
      if (TERMINAL_RUN.has(run.status)) return run;
      for await (const event of this.tail(runId, { signal })) {
        if (event.type === "done") break;
      }
      return this.getRun(runId);
    });
  }

  /** Waits for a fleet run to end, like `waitFor`, and returns it with the first page of its tasks. */
  async waitForFleetRun(fleetRunId: string, options: WaitOptions = {}): Promise<FleetRun> {
    return this.#withTimeout(options, `fleet run ${fleetRunId}`, async (signal) => {
      const fleetRun = await this.getFleetRun(fleetRunId);
      if (TERMINAL_FLEET_RUN.has(fleetRun.status)) return fleetRun;
      for await (const event of this.tailFleetRun(fleetRunId, { signal })) {
        if (event.type === "done") break;
      }
      return this.getFleetRun(fleetRunId);
    });
  }

  /** Runs `work` under the caller's signal and a timeout, turning the timeout into `WaitTimeoutError`. */
  async #withTimeout<T>(options: WaitOptions, what: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    const onAbort = () => controller.abort(options.signal?.reason);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    if (options.signal?.aborted) onAbort();
    let timedOut = false;
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            controller.abort(new WaitTimeoutError(`${what} did not end within ${options.timeoutMs} ms`));
          }, options.timeoutMs);
    try {
      return await work(controller.signal);
    } catch (error) {
      if (timedOut && (isAbortError(error) || error instanceof WaitTimeoutError)) {
        throw new WaitTimeoutError(`${what} did not end within ${options.timeoutMs} ms`);
      }
      throw error;
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
    }
  }
}
