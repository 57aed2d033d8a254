#!/usr/bin/env bash
# The package with the `test-hooks` feature, in target/pkg-test: the same build as `make pkg`
# (scripts/build-pkg.sh) plus a panic and a trap on request (src/test_hooks.rs), for the tests
# of what an internal error leaves behind (tests/js/pkg/internal-error.test.js,
# tests/clients/internal-error.test.mjs). Never shipped: pkg/ is built without the feature.
set -euo pipefail
cd "$(dirname "$0")/.."
WASQ_PKG_FEATURES=test-hooks WASQ_PKG_OUT=target/pkg-test scripts/build-pkg.sh
