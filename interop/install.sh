#!/usr/bin/env bash
# Installs the pinned MCP servers from package-lock.json, once: skipped while
# node_modules matches the lock file.
set -euo pipefail
cd "$(dirname "$0")"
stamp=node_modules/.agentbus-lock-stamp
if [ -f "$stamp" ] && cmp -s package-lock.json "$stamp"; then
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "npm not found: install Node.js 20+ (the interop tests run real MCP servers)" >&2
  exit 1
fi
npm ci --no-audit --no-fund --loglevel=error
cp package-lock.json "$stamp"
