#!/usr/bin/env bash
# The TypeScript client's suite (clients/typescript) against the debug binary:
# installs its pinned dependencies from package-lock.json (npm's cache makes
# reruns fast), builds it, and runs its tests, which start a server and a
# separate worker of target/debug/wingman. Without Node.js and npm, and not
# root, whoever runs it is skipped with a message; as root (CI), a missing
# Node.js is an error, so that the suite cannot silently stop running.
set -euo pipefail
cd "$(dirname "$0")/.."

skip() {
    echo "skipped: $1"
    exit 0
}

missing() {
    [ "$(id -u)" = 0 ] || skip "$1 and this is not root"
    echo "error: $1" >&2
    exit 1
}

command -v node >/dev/null || missing "Node.js is not installed"
command -v npm >/dev/null || missing "npm is not installed"
major=$(node -p 'process.versions.node.split(".")[0]')
# The client runs on Node 18; its tests use node:test's features of Node 20.
[ "$major" -ge 20 ] || missing "the TypeScript client's tests need Node.js 20 or later (found $(node --version))"

bin=$PWD/target/debug/wingman
[ -x "$bin" ] || { echo "error: $bin is missing: build it first (cargo build)" >&2; exit 1; }

cd clients/typescript
npm ci --no-audit --no-fund --loglevel=error
WINGMAN_BIN=$bin npm test
