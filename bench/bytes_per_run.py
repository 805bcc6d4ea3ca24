#!/usr/bin/env python3
"""What a run stores, read from a SQLite file that `wingman bench --dir DIR …` left behind.

Usage: python3 bench/bytes_per_run.py DIR/bench.db

Checkpoints the WAL into the file first (no Wingman process may have the file
open), then prints the file's pages per run and, per table with its indexes,
the pages and the payload (the bytes of the rows themselves, without page
headers and free space) per run. Uses SQLite's `dbstat` table, which
Python's sqlite3 module provides.
"""

import collections
import sqlite3
import sys


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    db = sqlite3.connect(sys.argv[1])
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    runs = db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    if runs == 0:
        sys.exit("the file holds no runs")
    fleet_tasks = db.execute("SELECT COUNT(*) FROM runs WHERE kind = 'fleet_task'").fetchone()[0]
    table_of = dict(db.execute("SELECT name, tbl_name FROM sqlite_schema"))
    pages, payload = collections.Counter(), collections.Counter()
    for name, size, data in db.execute("SELECT name, SUM(pgsize), SUM(payload) FROM dbstat GROUP BY name"):
        table = table_of.get(name, name)
        pages[table] += size
        payload[table] += data
    total = sum(pages.values())
    print(f"{runs} runs ({fleet_tasks} fleet tasks): {total / 1e6:.1f} MB of pages, {total / runs / 1024:.1f} KB a run")
    for table, size in pages.most_common(6):
        print(f"  {table:18s} {size / runs / 1024:6.2f} KB a run (rows {payload[table] / runs / 1024:5.2f} KB)")


if __name__ == "__main__":
    main()
