#!/usr/bin/env node
// graphile-worker's burn-down on PostgreSQL, to set beside
// `wingman bench --postgres URL burndown`.
//
// On the server at --url (or $WINGMAN_BENCH_POSTGRES_URL), the script makes a
// database of its own (wingman_peer_<pid>), installs graphile-worker's schema
// there, adds N jobs of a no-op task before any worker runs, then times one
// worker process (this one, through the library's `run()`) from the call to
// `run()` until every job has run (counted by the task itself) and
// graphile_worker._private_jobs is empty. The database is dropped at the end.
//
// graphile-worker 0.18 keeps its jobs in the table graphile_worker._private_jobs
// (renamed from `jobs` by its migration 000016); graphile_worker.jobs is a
// read-only view over it (migration 000017). A job is deleted from the table
// when it completes, so an empty table means every job is done and recorded.
//
// Durability is PostgreSQL's: graphile-worker sets nothing of its own, so every
// transaction that adds, fetches or completes jobs is a commit that waits for
// its WAL flush when the server has synchronous_commit=on and fsync=on (the
// server's defaults). The script reads both from the server and prints the
// first; it refuses to run with fsync off.
//
// Batched (the default), as graphile-worker's performance page gives its
// settings, with the concurrency as an option (default 32):
//   concurrentJobs C, maxPoolSize C + 1, localQueue { size: 500 },
//   completeJobBatchDelay 0, failJobBatchDelay 0.
// The local queue fetches and locks up to 500 jobs in one statement and hands
// them to the C workers; completions are grouped into one statement per
// turn of the event loop. In 0.18 these settings are read from
// `preset.worker` only (given at the top level of run()'s options, the local
// queue and the batch delays are dropped with a warning), so they go there.
// --unbatched: concurrentJobs 10 (or --concurrency) and graphile-worker's
// defaults otherwise: no local queue, each job fetched and completed in a
// statement of its own, a pool of 10 connections.
//
// As graphile-worker's own performance test runs it: NO_LOG_SUCCESS=1 (no line
// per completed job) and a logger that drops info and debug lines; warnings
// and errors still go to stderr.
//
// Usage (after `npm ci --prefix bench/peers`):
//   node bench/peers/graphile_burndown.mjs [--jobs 40000] [--concurrency 32]
//        [--unbatched] [--url postgres://postgres@127.0.0.1:5432/test]

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";

// Read by graphile-worker when its modules load, so set before importing it.
process.env.NO_LOG_SUCCESS = "1";

const { run, makeWorkerUtils, Logger } = await import("graphile-worker");
const { default: pg } = await import("pg");

const require = createRequire(import.meta.url);
const graphileVersion = JSON.parse(
  readFileSync(
    join(dirname(require.resolve("graphile-worker")), "..", "package.json"),
    "utf8",
  ),
).version;

const DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/test";
const ADD_CHUNK = 5_000; // jobs per addJobs call while filling the queue
const POLL_MS = 2; // how often the jobs table is checked once every job has run

const { values: opts } = parseArgs({
  options: {
    jobs: { type: "string", default: "40000" },
    concurrency: { type: "string" },
    unbatched: { type: "boolean", default: false },
    url: { type: "string" },
    help: { type: "boolean", short: "h", default: false },
  },
});
if (opts.help) {
  console.log(
    "usage: node graphile_burndown.mjs [--jobs N] [--concurrency C] [--unbatched] [--url URL]",
  );
  process.exit(0);
}
const jobs = Number.parseInt(opts.jobs, 10);
const batched = !opts.unbatched;
const concurrency = Number.parseInt(
  opts.concurrency ?? (batched ? "32" : "10"),
  10,
);
if (!(jobs >= 1) || !(concurrency >= 1)) {
  console.error("--jobs and --concurrency must be positive integers");
  process.exit(2);
}
const serverUrl =
  opts.url || process.env.WINGMAN_BENCH_POSTGRES_URL || DEFAULT_URL;

const databaseName = `wingman_peer_${process.pid}`;
const databaseUrl = (() => {
  const url = new URL(serverUrl);
  url.pathname = `/${databaseName}`;
  return url.toString();
})();

// Warnings and errors only.
const logger = new Logger(() => (level, message) => {
  if (level === "error" || level === "warning") {
    console.error(`graphile-worker ${level}: ${message}`);
  }
});

const workerSettings = batched
  ? {
      concurrentJobs: concurrency,
      maxPoolSize: concurrency + 1,
      localQueue: { size: 500 },
      completeJobBatchDelay: 0,
      failJobBatchDelay: 0,
    }
  : {
      concurrentJobs: concurrency,
      // graphile-worker's default pool is 10 connections; grow it only when
      // asked for more jobs at once than that.
      ...(concurrency > 10 ? { maxPoolSize: concurrency + 1 } : {}),
    };

async function admin(sql) {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

let runner = null;
let created = false;
let cleaning = null;
function cleanUp() {
  cleaning ??= (async () => {
    if (runner) {
      await runner.stop().catch(() => {});
      runner = null;
    }
    if (created) {
      await admin(`drop database if exists ${databaseName} with (force)`);
      created = false;
    }
  })();
  return cleaning;
}
let interrupted = false;
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    interrupted = true;
    cleanUp().finally(() => process.exit(130));
  });
}

async function main() {
  const settings = await admin(
    "select current_setting('synchronous_commit') as sc, current_setting('fsync') as fsync",
  );
  const { sc: synchronousCommit, fsync } = settings.rows[0];
  if (fsync !== "on") {
    throw new Error(`the server runs with fsync=${fsync}; nothing would be durable`);
  }

  await admin(`drop database if exists ${databaseName}`);
  await admin(`create database ${databaseName}`);
  created = true;

  // Install the schema and add the jobs before any worker runs.
  const utils = await makeWorkerUtils({ connectionString: databaseUrl, logger });
  try {
    await utils.migrate();
    for (let added = 0; added < jobs; added += ADD_CHUNK) {
      const count = Math.min(ADD_CHUNK, jobs - added);
      await utils.addJobs(
        Array.from({ length: count }, () => ({ identifier: "noop", payload: {} })),
      );
    }
  } finally {
    await utils.release();
  }

  // A connection of its own to watch the jobs table, opened before the clock starts.
  const watcher = new pg.Client({ connectionString: databaseUrl });
  await watcher.connect();
  const jobsLeft = async () =>
    Number(
      (await watcher.query("select count(*) as n from graphile_worker._private_jobs"))
        .rows[0].n,
    );
  try {
    const queued = await jobsLeft();
    if (queued !== jobs) {
      throw new Error(`expected ${jobs} jobs queued, found ${queued}`);
    }

    let ran = 0;
    let allRan;
    const everyJobRan = new Promise((resolve) => (allRan = resolve));
    const taskList = {
      noop: async () => {
        ran += 1;
        if (ran === jobs) allRan();
      },
    };

    const started = process.hrtime.bigint();
    runner = await run({
      taskList,
      noHandleSignals: true,
      preset: {
        worker: { connectionString: databaseUrl, logger, ...workerSettings },
      },
    });
    // The worker stopping or failing before every job ran ends the wait too.
    let finished = false;
    const stoppedEarly = runner.promise.then(() => {
      if (!finished) throw new Error("the worker stopped before every job ran");
    });
    stoppedEarly.catch(() => {}); // reported through the race below, if at all
    await Promise.race([everyJobRan, stoppedEarly]);
    finished = true;
    // Completions may still be on their way to the database.
    while ((await jobsLeft()) !== 0) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    await runner.stop();
    runner = null;
    if (ran !== jobs) {
      throw new Error(`expected ${jobs} jobs run, counted ${ran}`);
    }

    const mode = batched ? "batched" : "unbatched";
    console.log(
      `graphile-worker ${graphileVersion} burn-down (${mode}, ${concurrency} at a time): ` +
        `${jobs} jobs in ${seconds.toFixed(2)} s, ${(jobs / seconds).toFixed(0)} jobs/s ` +
        `(synchronous_commit=${synchronousCommit})`,
    );
  } finally {
    await watcher.end();
  }
}

try {
  await main();
} catch (error) {
  if (!interrupted) console.error(error?.stack ?? error);
  process.exitCode = 1;
} finally {
  await cleanUp();
}
