#!/usr/bin/env bash
# schemathesis against a real server: it reads GET /openapi.json and sends
# generated requests (valid and invalid) to every operation, alone and in
# sequences that follow the resources they create, then checks each answer:
# no 5xx, a status, content type, headers and body the document allows,
# invalid input refused, every route but /health refusing a request without
# the token, and an OPTIONS `Allow` that names the route's methods. It also
# fails when an operation refused every valid request it generated with a
# 400 or 422 (schemathesis's `validation_mismatch` warning, made an error by
# .ci/schemathesis.toml): the operation's schema allows what it refuses.
# A fixed seed and a bounded number of examples per operation keep it
# repeatable and within a few minutes.
#
# It runs `wingman serve` (embedded workers, a temporary SQLite database,
# --work-root in a temporary directory, a token) on a free port, and
# installs schemathesis from PyPI into a virtualenv under target/. Without
# Python's venv and pip (and not root), it is skipped with a message.
set -euo pipefail
cd "$(dirname "$0")/.."

seed=20261124
examples=${SCHEMATHESIS_MAX_EXAMPLES:-100}
config=$PWD/.ci/schemathesis.toml
token=schemathesis-token-0123456789

# The virtualenv, the binary, `start_server` and the cleanup.
source .ci/schemathesis_common.sh
start_server "$token"
echo "server: $url (embedded workers, SQLite, --auth-token); seed $seed, at most $examples examples per operation"

# Every check but positive_data_acceptance, which expects every request the
# schema allows to be accepted: the API also refuses values no schema
# expresses (an unknown provider, an agent that does not exist), with a 400
# or 404 the document lists.
checks=all
exclude=positive_data_acceptance
status=0
# Generated provider limits are raised out of the way of the runs (see the hooks' file).
(cd "$work" && PYTHONPATH="$hooks" SCHEMATHESIS_HOOKS=schemathesis_hooks \
    timeout 600 "$venv/bin/schemathesis" --config-file "$config" run "$url/openapi.json" \
    --header "Authorization: Bearer $token" \
    --checks "$checks" --exclude-checks "$exclude" \
    --seed "$seed" --max-examples "$examples" --workers 1 \
    --request-timeout 20 --generation-database none --no-color) | tee "$work/report.txt" || status=$?

# The figures on one line, from schemathesis's summary.
tested=$(sed -n 's/^ *Tested: *\([0-9]*\).*/\1/p' "$work/report.txt" | tail -n 1)
cases=$(sed -n '/^Test cases:/{n;s/^ *//;p;}' "$work/report.txt" | tail -n 1)
echo "schemathesis figures: ${tested:-?} operations tested; test cases: ${cases:-?} (seed $seed, at most $examples per operation)"
if [ "$status" != 0 ]; then
    echo "schemathesis found failures or a schema that allows what its operation refuses (exit $status); the server's log:" >&2
    tail -n 50 "$work/server.log" >&2
    exit "$status"
fi
