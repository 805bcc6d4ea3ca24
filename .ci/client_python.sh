#!/usr/bin/env bash
# The Python client's suite (clients/python), against the real binaries: a
# server and a separate worker that the tests start on a temporary SQLite
# database. Needs target/debug/wingman (built by the Rust suites before
# this). The virtualenv under target/ is made once and reused while the
# lock file is unchanged. Without Python's venv and pip, and not root,
# whoever runs it is skipped with a message (`skip` exits 0).
set -euo pipefail
cd "$(dirname "$0")/.."

root=$PWD
client=$root/clients/python
venv=$root/target/clients/python-venv
lock=$client/requirements-dev.lock

skip() {
    echo "skipped: $1"
    exit 0
}

[ -x target/debug/wingman ] || { echo "error: target/debug/wingman is not built" >&2; exit 1; }
command -v python3 >/dev/null || skip "python3 is not installed"

# The lock's digest is kept in the virtualenv, so that a changed lock makes a new one.
digest=$(sha256sum "$lock" | cut -d' ' -f1)
if [ ! -x "$venv/bin/pytest" ] || [ "$(cat "$venv/.lock-digest" 2>/dev/null)" != "$digest" ]; then
    rm -rf "$venv"
    mkdir -p "$(dirname "$venv")"
    if ! python3 -m venv "$venv" >/dev/null 2>&1; then
        [ "$(id -u)" = 0 ] || skip "python3 cannot make a virtualenv (python3-venv) and this is not root"
        echo "python3 -m venv failed" >&2
        exit 1
    fi
    if ! "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$lock"; then
        [ "$(id -u)" = 0 ] || skip "pip could not install $lock and this is not root"
        echo "pip install -r $lock failed" >&2
        exit 1
    fi
    echo "$digest" >"$venv/.lock-digest"
fi
# The package itself, editable and with the locked build backend, so that
# nothing unpinned is fetched to build it.
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-build-isolation --no-deps -e "$client"

cd "$client"
WINGMAN_BIN=$root/target/debug/wingman "$venv/bin/python" -m pytest -p no:cacheprovider -q tests
