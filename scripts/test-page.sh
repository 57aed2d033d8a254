#!/usr/bin/env bash
# Page tests for www/ in real Chromium (playwright-core driving /usr/bin/chromium; never
# `npx playwright install`). Needs the built package (`make pkg`) and node_modules.
# Set WASQ_PAGE_URL to test a running `wasq serve` instead of the built-in static server.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ ! -f pkg/package.json ]]; then
  echo "test-page: pkg/ is missing; run \`make pkg\` first" >&2
  exit 1
fi
if [[ ! -d node_modules/playwright-core ]]; then
  echo "test-page: node_modules/playwright-core is missing; run \`npm ci\` first" >&2
  exit 1
fi
mkdir -p tests/artifacts/page
# One file at a time: each launches its own Chromium, and two cores do not fit two comfortably.
node --test --test-concurrency=1 tests/page/*.test.mjs # by name: Node 22 takes a directory as a file
