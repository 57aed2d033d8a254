#!/usr/bin/env bash
# Edge tests: the packaged Worker (pkg/worker) in workerd through miniflare, driven by the real
# @aws-sdk/client-sqs. Needs pkg/ (scripts/build-pkg.sh) and the root devDependencies.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -d node_modules/miniflare ]] || npm ci --no-audit --no-fund
if [[ -z "${WASQ_PKG_DIR:-}" && ! -f pkg/worker/index.js ]]; then
  bash scripts/build-pkg.sh
fi
# The SDK's Node 20 notice is not a test result.
AWS_SDK_JS_SUPPRESS_NODE_VERSION_WARNING=1 exec node --test tests/edge/
