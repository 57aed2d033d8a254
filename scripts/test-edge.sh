#!/usr/bin/env bash
# Edge tests: the packaged Worker (pkg/worker) in workerd through miniflare, driven by the real
# @aws-sdk/client-sqs. Needs pkg/ (scripts/build-pkg.sh), target/pkg-test (scripts/build-test-pkg.sh,
# for tests/edge/internal-error.test.mjs) and the root devDependencies.
set -euo pipefail
cd "$(dirname "$0")/.."
# On Node 22 whatever node is on PATH (scripts/ensure-node.sh; WASQ_NODE=system: PATH's own).
node_bin=$(scripts/ensure-node.sh)
if [[ -n "$node_bin" ]]; then export PATH="$node_bin:$PATH"; fi
[[ -d node_modules/miniflare ]] || npm ci --no-audit --no-fund
if [[ -z "${WASQ_PKG_DIR:-}" && ! -f pkg/worker/index.js ]]; then
  bash scripts/build-pkg.sh
fi
# The SDK's Node 20 notice is not a test result (WASQ_NODE=system on Node 20).
AWS_SDK_JS_SUPPRESS_NODE_VERSION_WARNING=1 exec node --test tests/edge/*.test.mjs # by name: Node 22 takes a directory as a file
