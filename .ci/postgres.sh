# CI's PostgreSQL, sourced by .ci/run: every PostgreSQL test must run, so
# this exports WINGMAN_TEST_POSTGRES=required and a WINGMAN_TEST_POSTGRES_URL
# that answers, or stops CI with a message that says what is missing. The
# server is the one WINGMAN_TEST_POSTGRES_URL names when it is set, else the
# machine's own (Debian's cluster on 127.0.0.1:5432, trust auth, database
# `test`), started if need be.

export WINGMAN_TEST_POSTGRES=required

postgres_fail() {
    echo "error: $1" >&2
    echo "CI runs every PostgreSQL test: install and start PostgreSQL, or set WINGMAN_TEST_POSTGRES_URL" >&2
    exit 1
}

# Waits up to 30 s for the server at host $1, port $2 to accept connections
# (a server just started needs a moment); fails CI if it never does.
postgres_wait() {
    command -v pg_isready >/dev/null || return 0
    for _ in $(seq 1 30); do
        pg_isready -q -h "$1" -p "$2" && return 0
        sleep 1
    done
    postgres_fail "PostgreSQL at $1:$2 does not accept connections after 30 s"
}

# The machine's newest cluster, started if it is not running (as root).
postgres_local() {
    if ! command -v pg_ctlcluster >/dev/null || [ ! -d /etc/postgresql ]; then
        postgres_fail "no PostgreSQL is installed (no pg_ctlcluster, no /etc/postgresql)"
    fi
    version=$(ls /etc/postgresql | sort -V | tail -n 1)
    [ -n "$version" ] || postgres_fail "no PostgreSQL cluster under /etc/postgresql"
    if ! pg_lsclusters -h 2>/dev/null | awk '{print $4}' | grep -q online; then
        [ "$(id -u)" = 0 ] || postgres_fail "PostgreSQL $version is not running, and this is not root to start it"
        pg_ctlcluster --skip-systemctl-redirect "$version" main start \
            || postgres_fail "PostgreSQL $version did not start (see /var/log/postgresql/)"
    fi
    export WINGMAN_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/test
    echo "PostgreSQL $version on this machine ($WINGMAN_TEST_POSTGRES_URL)"
    postgres_wait 127.0.0.1 5432
    postgres_raise_connections
}

# The suites run many servers and workers at once, each with its own
# database and pools: more than PostgreSQL's default 100 connections.
postgres_raise_connections() {
    connections=$(psql -h 127.0.0.1 -U postgres -d test -Atc "SHOW max_connections" 2>/dev/null || true)
    if [[ "$connections" =~ ^[0-9]+$ ]] && [ "$connections" -lt 300 ] && [ "$(id -u)" = 0 ]; then
        echo "raising max_connections from $connections to 300 (a restart)"
        psql -h 127.0.0.1 -U postgres -d test -qc "ALTER SYSTEM SET max_connections = 300"
        pg_ctlcluster --skip-systemctl-redirect "$version" main restart \
            || postgres_fail "PostgreSQL $version did not restart (see /var/log/postgresql/)"
        postgres_wait 127.0.0.1 5432
    fi
}

if [ -n "${WINGMAN_TEST_POSTGRES_URL:-}" ]; then
    echo "using WINGMAN_TEST_POSTGRES_URL from the environment"
else
    postgres_local
fi
# The tests log in and create databases: check the first as they will do it.
if command -v psql >/dev/null; then
    psql "$WINGMAN_TEST_POSTGRES_URL" -Atqc "SELECT 1" >/dev/null \
        || postgres_fail "cannot log in to the PostgreSQL server WINGMAN_TEST_POSTGRES_URL names"
else
    echo "psql is not installed: the suites' first PostgreSQL test will tell whether the server answers"
fi
echo "PostgreSQL is required: every PostgreSQL test runs on it (WINGMAN_TEST_POSTGRES=required)"
