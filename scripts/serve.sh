#!/usr/bin/env bash
# `make serve`: run the built package's CLI (`wasq serve`) from the repository root, so that the
# page is served from www/ and the package from pkg/. Builds nothing: `make serve` builds pkg first.
# Arguments pass through: scripts/serve.sh --port 9400 --data /tmp/q
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ! -f pkg/bin/wasq.mjs ]]; then
  echo "serve: pkg/bin/wasq.mjs is missing; run 'make pkg' first" >&2
  exit 1
fi
exec node pkg/bin/wasq.mjs serve "$@"
