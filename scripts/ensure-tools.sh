#!/usr/bin/env bash
# Install what `make pkg` and the JS tests need, skipping whatever is already in place, so a
# second run takes well under a second.
#   - the wasm32 Rust target, and std's sources (rust-src) for the size-optimised wasm
#   - wasm-bindgen-cli at exactly the crate's wasm-bindgen version (the CLI refuses other versions)
#   - node_modules from package-lock.json (binaryen's wasm-opt, esbuild, test dependencies)
set -euo pipefail
cd "$(dirname "$0")/.."

if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi

# The package's wasm rebuilds std for size (-Zbuild-std in scripts/build-pkg.sh): std's sources.
if ! rustup component list --installed 2>/dev/null | grep -qx rust-src; then
  rustup component add rust-src
fi

# One source of truth: the `=x.y.z` pin in Cargo.toml.
want=$(sed -n 's/^wasm-bindgen *= *"=\([0-9.]*\)".*/\1/p' Cargo.toml | head -n1)
if [[ -z "$want" ]]; then
  echo "ensure-tools: Cargo.toml must pin wasm-bindgen as \"=x.y.z\"" >&2
  exit 1
fi
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [[ "$have" != "$want" ]]; then
  echo "ensure-tools: installing wasm-bindgen-cli $want (have: ${have:-none}; takes ~10 min once)" >&2
  # Not --locked: the CLI's lock file pins a crate version the registry mirror does not carry.
  cargo install wasm-bindgen-cli --version "$want"
fi

# Browser tests (playwright-core pages, wasm-bindgen-test in Chromium) use Debian's Chromium.
if [[ ! -x /usr/bin/chromium || ! -x /usr/bin/chromedriver ]]; then
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
    apt-get update -qq && apt-get install -y -qq chromium chromium-driver
  else
    echo "ensure-tools: install chromium and chromium-driver (apt) for the browser tests" >&2
  fi
fi

# npm writes node_modules/.package-lock.json on every install; older than the lock file = stale.
# Under Node 22 (scripts/ensure-node.sh): miniflare requires it, and npm on an older node warns
# EBADENGINE for it on every clean install.
if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  node_bin=$(scripts/ensure-node.sh)
  PATH="${node_bin:+$node_bin:}$PATH" npm ci --no-audit --no-fund
fi
