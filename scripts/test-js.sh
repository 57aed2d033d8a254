#!/usr/bin/env bash
# Every JavaScript-side suite, against the package `make pkg` built (this script builds no pkg):
#   - node --test tests/js/ (package contract, long polling, timers, AWS SDK, fetch; storage
#     adapters; consumer) and tests/packaging/ (the packed tarball in Node ESM/CJS, TypeScript,
#     Chromium and workerd)
#   - the wasm-bindgen-test smoke tests (tests/wasm/) in Node, then in headless Chromium
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ ! -f pkg/package.json ]]; then
  echo "test-js: no pkg/ — run \`make pkg\` first" >&2
  exit 1
fi
scripts/ensure-tools.sh
# On Node 22 whatever node is on PATH (scripts/ensure-node.sh; WASQ_NODE=system: PATH's own).
node_bin=$(scripts/ensure-node.sh)
if [[ -n "$node_bin" ]]; then export PATH="$node_bin:$PATH"; fi

# Test files named by the shell: Node 22 takes a directory argument as a file (Node 20 searched it).
shopt -s globstar
node --test tests/js/**/*.test.js tests/packaging/*.test.mjs

export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner
cargo test --target wasm32-unknown-unknown --test wasm
WASM_BINDGEN_USE_BROWSER=1 CHROMEDRIVER="${CHROMEDRIVER:-$(command -v chromedriver)}" \
  cargo test --target wasm32-unknown-unknown --test wasm
