#!/usr/bin/env python3
"""huey's burn-down on SQLite, to set beside `wingman bench burndown`.

Enqueues N no-op tasks into a SqliteHuey on a fresh file, then times huey's
own Consumer (one worker thread) draining them, from the consumer's start
until every task has run (counted by the task itself) and the queue is empty.

Durability, as huey 3.5.4's SqliteStorage sets it (huey/storage.py):
  - journal_mode: SqliteStorage(journal_mode='wal') is the default, and every
    connection it opens runs `pragma journal_mode="wal"`. This script keeps
    that default.
  - synchronous: `fsync=None` (the default) leaves SQLite's own default alone
    (FULL with the SQLite that Python 3.11 on this machine links, 3.40.1);
    `fsync=True` makes each connection run `pragma synchronous=2`, that is
    FULL, and `fsync=False` runs `pragma synchronous=0` (OFF). This script
    passes fsync=True, so every commit waits for the WAL to reach the disk,
    as Wingman's default `synchronous=FULL` does. Both pragmas are read back
    from huey's own connection before the timing starts, and the printed line
    gives what was read.
  - Each dequeue is its own transaction (`begin exclusive`, select the next
    task, delete it, commit); a finished task also deletes its revocation key
    in a transaction of its own (a commit that changes nothing writes nothing).

Only the drain is timed. The tasks are put in beforehand in one transaction,
with huey's own serialization of each task into huey's own `task` table,
because SqliteStorage.enqueue commits (and, with fsync=True, syncs) once per
task and that part is not what is measured.

Usage:
    python bench/peers/huey_burndown.py [--jobs 20000] [--dir DIR]

The database goes in a new temporary directory (under DIR if given, else
the system's temporary directory, as `wingman bench` does), removed at the
end. A directory on tmpfs makes every fsync free; keep it on a real disk.
"""

import argparse
import logging
import os
import shutil
import signal
import sys
import tempfile
import threading
import time

import huey
from huey import SqliteHuey
from huey.consumer import Consumer

SYNCHRONOUS_NAMES = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=20_000,
                        help="tasks to enqueue before the consumer starts (default 20000)")
    parser.add_argument("--dir", default=None,
                        help="where to make the temporary database directory "
                             "(default: the system's temporary directory)")
    return parser.parse_args()


def main():
    args = parse_args()
    if args.jobs < 1:
        sys.exit("--jobs must be at least 1")

    # huey logs each task at INFO; keep the logging module quiet but for
    # problems, as a production consumer at its default level would write
    # only warnings.
    logging.basicConfig(level=logging.WARNING)

    workdir = tempfile.mkdtemp(prefix="huey-burndown-", dir=args.dir)
    try:
        return run(args.jobs, os.path.join(workdir, "huey.db"))
    except KeyboardInterrupt:
        return 130
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def run(jobs, filename):
    queue = SqliteHuey("burndown", filename=filename, fsync=True)

    ran = 0
    all_ran = threading.Event()
    count_lock = threading.Lock()

    @queue.task()
    def noop():
        nonlocal ran
        with count_lock:
            ran += 1
            if ran == jobs:
                all_ran.set()

    # The settings huey's connection really has.
    with queue.storage.db() as cursor:
        journal_mode = cursor.execute("pragma journal_mode").fetchone()[0]
        synchronous = cursor.execute("pragma synchronous").fetchone()[0]
    synchronous = SYNCHRONOUS_NAMES.get(synchronous, str(synchronous))
    if synchronous != "FULL" or journal_mode.lower() != "wal":
        sys.exit(f"expected journal_mode=wal, synchronous=FULL; huey's connection has "
                 f"journal_mode={journal_mode}, synchronous={synchronous}")

    # Enqueue: the rows SqliteStorage.enqueue would insert one commit at a
    # time, here in one transaction.
    storage = queue.storage
    rows = [(storage.name, storage.to_blob(queue.serialize_task(noop.s())), 0)
            for _ in range(jobs)]
    with storage.db(commit=True) as cursor:
        cursor.executemany("insert into task (queue, data, priority) values (?, ?, ?)", rows)
    del rows
    if queue.pending_count() != jobs:
        sys.exit(f"expected {jobs} tasks queued, found {queue.pending_count()}")

    # The consumer as `huey_consumer -w 1 -k thread` runs it: one worker
    # thread and the scheduler thread, its other settings left at huey's
    # defaults.
    consumer = Consumer(queue, workers=1, worker_type="thread")
    started = time.perf_counter()
    consumer.start()
    # Consumer.start() installs handlers that only note a signal for its own
    # run() loop, which is not used here: let Ctrl-C and SIGTERM end the
    # script (the temporary directory is still removed).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    all_ran.wait()
    # Each task is dequeued (deleted) in its own commit before it runs, so
    # once the last one has run the queue is empty.
    left = queue.pending_count()
    elapsed = time.perf_counter() - started
    consumer.stop(graceful=True)
    if left != 0 or ran != jobs:
        sys.exit(f"expected an empty queue and {jobs} tasks run; "
                 f"{left} left, {ran} ran")
    queue.storage.close()

    print(f"huey {huey.__version__} SqliteHuey burn-down: {jobs} jobs in {elapsed:.2f} s, "
          f"{jobs / elapsed:.0f} jobs/s (1 thread, synchronous={synchronous})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
