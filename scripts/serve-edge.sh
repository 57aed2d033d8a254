#!/usr/bin/env bash
# Serve the edge Worker locally in workerd (through miniflare's API) on 127.0.0.1:8787, with
# Durable Object storage persisted in target/wasq-edge/ and SigV4 credentials test/test.
# PORT, WASQ_PARTITIONS and WASQ_EDGE_STATE override the defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
# miniflare requires Node 22 (scripts/ensure-node.sh; WASQ_NODE=system: PATH's own node).
node_bin=$(scripts/ensure-node.sh)
if [[ -n "$node_bin" ]]; then export PATH="$node_bin:$PATH"; fi
[[ -d node_modules/miniflare ]] || npm ci --no-audit --no-fund
[[ -n "${WASQ_PKG_DIR:-}" || -f pkg/worker/index.js ]] || bash scripts/build-pkg.sh
exec node tests/edge/serve.mjs
