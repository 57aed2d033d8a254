#!/usr/bin/env bash
# Node 22 for the JS, client and edge suites, whatever node is on PATH (CI has only Node 20, which
# reached end of life in April 2026; miniflare and wrangler now require Node >= 22). Node's own
# binaries are published on the npm registry as node-<os>-<arch> packages (no install script), so
# npm fetches one into .tools/ once; later runs only check it is there.
# Prints the directory holding that `node`, for PATH. WASQ_NODE=system prints nothing: the suites
# then run on PATH's node (e.g. to check Node 20 still works where it can).
set -euo pipefail
cd "$(dirname "$0")/.."

readonly VERSION=22.23.5
[[ "${WASQ_NODE:-}" == "system" ]] && exit 0

case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) echo "ensure-node: no node-<os> package for $(uname -s); run with WASQ_NODE=system and Node 22 on PATH" >&2; exit 1 ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "ensure-node: no node package for $(uname -m); run with WASQ_NODE=system and Node 22 on PATH" >&2; exit 1 ;;
esac

readonly prefix=".tools/node-$VERSION"
readonly bin="$prefix/node_modules/node-$os-$arch/bin"
if [[ ! -x "$bin/node" ]]; then
  npm install --prefix "$prefix" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
    "node-$os-$arch@$VERSION" >&2
fi
if [[ "$("$bin/node" --version)" != "v$VERSION" ]]; then
  echo "ensure-node: $bin/node is not v$VERSION" >&2
  exit 1
fi
echo "$PWD/$bin"
