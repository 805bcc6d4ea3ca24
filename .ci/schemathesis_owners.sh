#!/usr/bin/env bash
# schemathesis as one owner among two: the hostile-request fuzz of the API
# under a member's key with another owner's IDs mixed into its paths, query
# strings and bodies (issue 47, point 6). It passes with no 5xx and no
# cross-owner read or write.
#
# On a fresh `wingman serve` (started as .ci/schemathesis.sh starts it, plus
# --allow-webhook-host 127.0.0.1 for a local webhook receiver), the admin
# token makes member keys for owners `alpha` and `beta`. As beta,
# .ci/schemathesis_owners.py makes one of everything that has an ID: two
# scripted agents (one whose runs end at their first step; one whose run
# calls `bash`, which needs approval, so that it stays `waiting`), a session
# with a run of each, a fleet and its run (two tasks, their sessions and
# runs), a formation and its run, two schedules that cannot tick while this
# runs (a yearly cron, next due on 1 January; a paused one), a secret, a
# provider key, and the webhook deliveries of the runs that ended (made to
# the receiver, so that nothing of beta's changes by itself afterwards).
# Every name, instruction, message, secret value and key of beta's holds the
# marker `beta-private-7f3a`. It then reads, as beta, each of those objects,
# their events and deliveries, and beta's lists (before.json).
#
# schemathesis then sends alpha's requests to every operation of GET
# /openapi.json: all phases, all checks but positive_data_acceptance and
# negative_data_rejection (see below), plus `owners_isolation`. Its hooks
# (.ci/schemathesis_owners_hooks.py) put beta's IDs of the route's kind into
# about half of the requests. The rule for each answer, in full in the hooks'
# file: no 5xx; nothing of beta's in it (its marker, an object owned by beta,
# and in a 2xx any of beta's IDs; an error may echo the IDs it was sent); and
# a request that carried one of beta's IDs gets what the same request gets
# with IDs no one has, which the check sends to compare: the same status, and
# an error in the same words. So beta's object is a 404 wherever a missing
# one is, never a 403 ("another owner's object is a 404, never a 403") and
# never a 2xx; a route of the admin's is a 403 for both; input refused before
# any lookup is the same 400 or 422 for both; a list filtered by beta's ID is
# the same empty 200. Secret and provider key names are each owner's own:
# alpha's `PUT /secrets/<beta's name>` makes alpha's secret (a 200), so those
# are held to "no 5xx, nothing of beta's" and to the comparison below.
#
# Last, beta's work is read again as beta and must be what it was, field for
# field; the only thing left out is the span of days of beta's usage, which
# ends today (it moves at midnight). Nothing else of beta's changes by
# itself: its runs have ended but the one waiting for a person. Beta's lists
# must hold beta's objects and nothing of another owner but what alpha
# shared (`"shared": true` agents, fleets and formations, which every owner
# sees by design). It fails too if an operation with an owned path parameter
# (/agents/{id}, /runs/{id}, /secrets/{name}, /owners/{owner}, …) never got
# one of beta's as alpha. The counts by operation and one line of figures
# follow. Fixed seed and bounded examples: three to four minutes on two
# cores. SCHEMATHESIS_OWNERS_KEEP=DIR keeps what was compared and recorded.
# Without Python's venv and pip (and not root), it is skipped with a message.
set -euo pipefail
cd "$(dirname "$0")/.."

seed=20261129
examples=${SCHEMATHESIS_OWNERS_MAX_EXAMPLES:-25}
config=$PWD/.ci/schemathesis_owners.toml
token=schemathesis-owners-token-0123456789

# The virtualenv, the binary, `start_server` and the cleanup.
source .ci/schemathesis_common.sh
python=$venv/bin/python

# A webhook receiver that answers 204 to anything: beta's deliveries are
# made once and then stay as they are.
: >"$work/receiver.port"
"$python" -c '
import http.server, sys
class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(204)
        self.end_headers()
    def log_message(self, *args):
        pass
server = http.server.HTTPServer(("127.0.0.1", 0), Receiver)
with open(sys.argv[1], "w") as file:
    file.write(str(server.server_address[1]))
server.serve_forever()
' "$work/receiver.port" &
helpers=$!
for _ in $(seq 1 100); do
    [ -s "$work/receiver.port" ] && break
    sleep 0.1
done
[ -s "$work/receiver.port" ] || { echo "the webhook receiver did not start" >&2; exit 1; }
receiver=http://127.0.0.1:$(cat "$work/receiver.port")/hook

start_server "$token" --allow-webhook-host 127.0.0.1
echo "server: $url (embedded workers, SQLite, --auth-token); seed $seed, at most $examples examples per operation"

"$python" .ci/schemathesis_owners.py setup "$url" "$token" "$receiver" "$work"
alpha=$("$python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["alpha"]["key"])' "$work/owners.json")

# Every check (owners_isolation, the hooks', among them) but two.
# positive_data_acceptance, as in .ci/schemathesis.sh: the API refuses values
# no schema expresses, and here half of the valid requests name beta's
# objects on purpose. negative_data_rejection, which is about the schema,
# not owners, and is the admin's pass's: with this seed its fuzzing sends
# POST /sessions a body of a lone "\n", which the server reads as an empty
# body, so as {} (src/api/extract.rs), and answers 201, where schemathesis
# expects invalid JSON refused.
checks=all
exclude=positive_data_acceptance,negative_data_rejection
status=0
(cd "$work" && PYTHONPATH="$hooks" SCHEMATHESIS_HOOKS=schemathesis_owners_hooks \
    WINGMAN_OWNERS_FILE="$work/owners.json" WINGMAN_OWNERS_LOG="$work/requests.jsonl" \
    timeout 600 "$venv/bin/schemathesis" --config-file "$config" run "$url/openapi.json" \
    --header "Authorization: Bearer $alpha" \
    --checks "$checks" --exclude-checks "$exclude" \
    --seed "$seed" --max-examples "$examples" --workers 1 \
    --request-timeout 20 --generation-database none --no-color) | tee "$work/report.txt" || status=$?

verified=0
"$python" .ci/schemathesis_owners.py verify "$work" || verified=$?

tested=$(sed -n 's/^ *Tested: *\([0-9]*\).*/\1/p' "$work/report.txt" | tail -n 1)
cases=$(sed -n '/^Test cases:/{n;s/^ *//;p;}' "$work/report.txt" | tail -n 1)
requests= carrying= reached= owned= cross= errors=
[ -s "$work/figures.txt" ] && read -r requests carrying reached owned cross errors <"$work/figures.txt"
echo "schemathesis owners figures: ${tested:-?} operations tested; test cases: ${cases:-?};" \
    "${requests:-?} distinct requests as alpha, ${carrying:-?} carrying beta's IDs or names" \
    "(${reached:-?} of ${owned:-?} operations with an owned path parameter received some);" \
    "cross-owner 2xx: ${cross:-?}; 5xx: ${errors:-?} (seed $seed, at most $examples per operation, ${SECONDS} s in all)"
# SCHEMATHESIS_OWNERS_KEEP=DIR keeps what was compared and recorded.
if [ -n "${SCHEMATHESIS_OWNERS_KEEP:-}" ]; then
    mkdir -p "$SCHEMATHESIS_OWNERS_KEEP"
    cp "$work"/*.json "$work"/requests.jsonl "$work"/report.txt "$work"/server.log "$SCHEMATHESIS_OWNERS_KEEP"/ 2>/dev/null || true
fi
if [ "$status" != 0 ] || [ "$verified" != 0 ]; then
    echo "the owners' fuzz failed (schemathesis exit $status, the comparison of beta's work exit $verified); the server's log:" >&2
    tail -n 50 "$work/server.log" >&2
    exit 1
fi
