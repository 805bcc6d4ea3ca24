/**
 * Starts the real binaries for the tests: a server with no embedded workers and a separate worker
 * process, on a SQLite database in a temporary directory, with a token the client must send.
 */

import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { NewAgent } from "../src/index.js";

/** The package's directory (tests run from build/test/). */
export const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const wingmanBin = process.env.WINGMAN_BIN || resolve(packageRoot, "../../target/debug/wingman");

/** A port nobody listens on: the kernel picks one for a listener, which is then closed. */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

/**
 * The environment of the binaries: without the caller's WINGMAN_* variables, so that a
 * developer's settings cannot change what the tests see.
 */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith("WINGMAN_")) env[key] = value;
  }
  env.RUST_LOG = env.RUST_LOG ?? "warn";
  return env;
}

export class Stack {
  readonly dir: string;
  readonly databaseUrl: string;
  readonly token = `token-${Math.random().toString(36).slice(2)}`;
  port = 0;
  server: ChildProcess | undefined;
  worker: ChildProcess | undefined;
  #logs: string[] = [];

  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), "wingman-ts-client-"));
    this.databaseUrl = `sqlite://${join(this.dir, "w.db")}`;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  #spawn(name: string, args: string[]): ChildProcess {
    const log = join(this.dir, `${name}-${this.#logs.length}.log`);
    this.#logs.push(log);
    const fd = openSync(log, "a");
    return spawn(wingmanBin, args, { env: childEnv(), stdio: ["ignore", fd, fd] });
  }

  /** Starts (or restarts, on the same port and database) the server and waits for `/health`. */
  async startServer(): Promise<void> {
    if (this.port === 0) this.port = await freePort();
    this.server = this.#spawn("server", [
      "serve",
      "--addr",
      `127.0.0.1:${this.port}`,
      "--workers",
      "0",
      "--database-url",
      this.databaseUrl,
      "--auth-token",
      this.token,
      // The idempotency test reaches the server through a proxy on another port; the server
      // answers only to its own host and port unless told that a proxy stands in front of it.
      "--allowed-host",
      "127.0.0.1",
    ]);
    await this.waitHealthy();
  }

  /** Starts the separate worker process. */
  startWorker(): void {
    this.worker = this.#spawn("worker", ["worker", "--database-url", this.databaseUrl]);
  }

  /** Both, and the client's key through the environment, as a user would set it. */
  async start(): Promise<this> {
    await this.startServer();
    this.startWorker();
    process.env.WINGMAN_API_KEY = this.token;
    return this;
  }

  async waitHealthy(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.server?.exitCode !== null && this.server?.exitCode !== undefined) {
        throw new Error(`the server exited with ${this.server.exitCode}:\n${this.logs()}`);
      }
      try {
        const response = await fetch(`${this.url}/health`);
        if (response.ok) return;
      } catch {
        // Not listening yet.
      }
      if (Date.now() > deadline) throw new Error(`the server did not become healthy:\n${this.logs()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** SIGKILLs the server, as a crash would, and waits until it is gone. */
  async killServer(): Promise<void> {
    await kill(this.server, "SIGKILL");
    this.server = undefined;
  }

  logs(): string {
    return this.#logs.map((path) => `--- ${path}\n${readFileSync(path, "utf8").slice(-4000)}`).join("\n");
  }

  async stop(): Promise<void> {
    await Promise.all([kill(this.worker, "SIGTERM"), kill(this.server, "SIGTERM")]);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Sends a signal and waits for the exit, escalating to SIGKILL after 5 s. */
function kill(child: ChildProcess | undefined, signal: NodeJS.Signals): Promise<void> {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolveExit) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolveExit();
    });
    child.kill(signal);
  });
}

/**
 * An agent of the offline `scripted` provider. Its options are free-form JSON, which the
 * generated types check separately (test/free-form-json.test.ts); here they are only passed on.
 */
export function scriptedAgent(name: string, options?: Record<string, unknown>): NewAgent {
  return { name, provider: "scripted", model: "echo", ...(options === undefined ? {} : { options }) } as NewAgent;
}
