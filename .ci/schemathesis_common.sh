# Sourced by .ci/schemathesis.sh and .ci/schemathesis_owners.sh (from the
# repository's root): schemathesis in a virtualenv under target/
# (.ci/schemathesis_venv.sh), the wingman binary, and `start_server`, which
# runs `wingman serve` on a free port.

# The virtualenv (and `skip`, `venv`, `version`).
source .ci/schemathesis_venv.sh
binary=${WINGMAN_BIN:-$PWD/target/debug/wingman}
hooks=$PWD/.ci
"$venv/bin/schemathesis" --version

[ -x "$binary" ] || cargo build --locked --bin wingman
work=$(mktemp -d)
server=
# Other processes the calling script starts, stopped with the server.
helpers=
cleanup() {
    for pid in $helpers; do
        kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
    done
    [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

# start_server TOKEN [FLAG…]: `wingman serve` with embedded workers, a
# temporary SQLite database, --work-root in a temporary directory and TOKEN
# as --auth-token, plus the flags given; sets `server` (its PID) and `url`.
start_server() {
    local token=$1
    shift
    mkdir "$work/root"
    # Made before the server starts: the loop below may read it before the
    # shell that starts the server has opened it.
    : >"$work/stdout"
    # Port 0: the server picks a free port and prints its address first.
    # Any stdio MCP command may be declared: which ones an operator allows is
    # a setting the document cannot state, and declarations are what is tested.
    WINGMAN_LOG=warn WINGMAN_ALLOW_MCP_COMMANDS='*' "$binary" serve --addr 127.0.0.1:0 --workers 2 \
        --database-url "$work/wingman.db" --data-dir "$work" --work-root "$work/root" \
        --auth-token "$token" "$@" >"$work/stdout" 2>"$work/server.log" &
    server=$!
    url=
    for _ in $(seq 1 100); do
        url=$(head -n 1 "$work/stdout" | sed -n 's/.* \(http:[^ ]*\)$/\1/p')
        [ -n "$url" ] && break
        sleep 0.1
    done
    [ -n "$url" ] || { cat "$work/server.log" >&2; echo "the server did not start" >&2; exit 1; }
}
