# schemathesis in a virtualenv under target/, installed from PyPI on first
# use. Sourced by .ci/schemathesis_common.sh, and run on its own by .ci/run
# before the two schemathesis passes start side by side, so that they never
# both install it. Without Python's venv and pip, and not root, whoever runs
# it is skipped with a message (`skip` exits 0).

version=4.32.5
venv=$PWD/target/schemathesis/venv-$version

skip() {
    echo "skipped: $1"
    exit 0
}

if [ ! -x "$venv/bin/schemathesis" ]; then
    command -v python3 >/dev/null || skip "python3 is not installed"
    rm -rf "$venv"
    if ! python3 -m venv "$venv" >/dev/null 2>&1; then
        [ "$(id -u)" = 0 ] || skip "python3 cannot make a virtualenv (python3-venv) and this is not root"
        echo "python3 -m venv failed" >&2
        exit 1
    fi
    if ! "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$version"; then
        [ "$(id -u)" = 0 ] || skip "pip could not install schemathesis==$version and this is not root"
        echo "pip install schemathesis==$version failed" >&2
        exit 1
    fi
fi
