#!/usr/bin/env bash
# Installs the MCP reference server the MCP suites run against
# (@modelcontextprotocol/server-everything, pinned) into target/mcp, with
# the machine's Node.js and npm. The suites skip with a message when it is
# missing, unless WINGMAN_TEST_MCP=required (which .ci/run sets).
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=2026.8.31
entry=target/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js
if [ -f "$entry" ] && grep -q "\"version\": \"$VERSION\"" target/mcp/node_modules/@modelcontextprotocol/server-everything/package.json; then
    echo "the MCP reference server $VERSION is installed"
    exit 0
fi
if ! command -v npm >/dev/null || ! command -v node >/dev/null; then
    echo "error: Node.js and npm are needed to install the MCP reference server" >&2
    exit 1
fi
mkdir -p target/mcp
npm install --prefix target/mcp --no-audit --no-fund --loglevel=error "@modelcontextprotocol/server-everything@$VERSION"
echo "installed the MCP reference server $VERSION in target/mcp"
