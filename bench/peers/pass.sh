#!/usr/bin/env bash
# One interleaved pass of the burn-downs that bench/peers/README.md sets side
# by side, each round in this order:
#   1. huey 3.5.4, SqliteHuey, 1 consumer thread, 20,000 jobs
#   2. Wingman on SQLite, 1 worker process x 256, 20,000 runs
#   3. graphile-worker 0.18.0, batched, 32 at a time, 40,000 jobs
#      (then unbatched, 10 at a time, with --with-unbatched)
#   4. Wingman on PostgreSQL, 2 worker processes x 512, 40,000 runs
# Every line the benchmarks print is passed on, after "[round N] ".
#
# Usage, from the repository root:
#   bash bench/peers/pass.sh [--rounds 3] [--url URL] [--with-unbatched]
# Environment:
#   WINGMAN   the binary (default target/release/wingman)
#   PYTHON    a Python with huey installed (default /tmp/wingman-peers-venv/bin/python
#             when it exists, else python3)
#   WINGMAN_BENCH_POSTGRES_URL   the PostgreSQL server when --url is not given
#             (default postgres://postgres@127.0.0.1:5432/test); both Wingman and
#             graphile-worker make a database of their own there and drop it after.
# Setup: see bench/peers/README.md (a virtualenv with requirements.txt, and
# `npm ci --prefix bench/peers`).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

rounds=3
url=${WINGMAN_BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/test}
with_unbatched=0
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) rounds=${2:?--rounds needs a number}; shift 2 ;;
        --rounds=*) rounds=${1#*=}; shift ;;
        --url) url=${2:?--url needs a URL}; shift 2 ;;
        --url=*) url=${1#*=}; shift ;;
        --with-unbatched) with_unbatched=1; shift ;;
        -h|--help) sed -n '2,21p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "pass.sh: unknown argument: $1" >&2; exit 2 ;;
    esac
done
case "$rounds" in
    ''|*[!0-9]*|0) echo "pass.sh: --rounds must be a positive number" >&2; exit 2 ;;
esac

# A relative path given in WINGMAN is taken from where the script was started.
wingman=${WINGMAN:-$root/target/release/wingman}
case "$wingman" in
    /*) ;;
    */*) wingman="$PWD/$wingman" ;;
esac
if [ -n "${PYTHON:-}" ]; then
    python=$PYTHON
elif [ -x /tmp/wingman-peers-venv/bin/python ]; then
    python=/tmp/wingman-peers-venv/bin/python
else
    python=python3
fi

# Check the tools before the first round rather than failing in the middle.
if ! command -v "$wingman" >/dev/null 2>&1; then
    echo "pass.sh: no Wingman binary at $wingman (build it with cargo build --release, or set WINGMAN)" >&2
    exit 1
fi
if ! "$python" -c 'import huey' 2>/dev/null; then
    echo "pass.sh: $python cannot import huey; see bench/peers/README.md (or set PYTHON)" >&2
    exit 1
fi
if [ ! -d "$here/node_modules/graphile-worker" ]; then
    echo "pass.sh: graphile-worker is not installed; run: npm ci --prefix bench/peers" >&2
    exit 1
fi
if command -v pg_isready >/dev/null 2>&1 && ! pg_isready -q -d "$url"; then
    echo "pass.sh: no PostgreSQL answering at $url" >&2
    echo "  (on this machine: pg_ctlcluster --skip-systemctl-redirect \$(ls /etc/postgresql) main start)" >&2
    exit 1
fi

cd "$root"

# Runs one benchmark, passing its lines on with the round's number.
step() {
    local round=$1
    shift
    "$@" 2>&1 | sed -u "s/^/[round $round] /"
}

for round in $(seq 1 "$rounds"); do
    echo "[round $round] huey, SQLite, 1 thread, 20000 jobs"
    step "$round" "$python" "$here/huey_burndown.py" --jobs 20000

    # Wingman reads WINGMAN_BENCH_POSTGRES_URL too: unset it here, or this
    # SQLite run would go to PostgreSQL.
    echo "[round $round] wingman, SQLite, 1 worker x 256, 20000 runs"
    step "$round" env -u WINGMAN_BENCH_POSTGRES_URL "$wingman" bench burndown \
        --workers 1 --concurrency 256

    echo "[round $round] graphile-worker, PostgreSQL, batched, 32 at a time, 40000 jobs"
    step "$round" node "$here/graphile_burndown.mjs" --url "$url" --jobs 40000 --concurrency 32
    if [ "$with_unbatched" = 1 ]; then
        echo "[round $round] graphile-worker, PostgreSQL, unbatched, 10 at a time, 40000 jobs"
        step "$round" node "$here/graphile_burndown.mjs" --url "$url" --jobs 40000 --unbatched
    fi

    echo "[round $round] wingman, PostgreSQL, 2 workers x 512, 40000 runs"
    step "$round" "$wingman" bench --postgres "$url" burndown \
        --runs 40000 --sessions 4000 --workers 2 --concurrency 512
done
