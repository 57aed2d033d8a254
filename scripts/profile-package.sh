#!/usr/bin/env bash
# Where the package's cycle spends its time: builds pkg/, then a copy of it whose wasm keeps its
# function names (target/pkg-named: the same build steps, with wasm-opt's -g), runs
# bench/cycle-cpu.mjs in it under `node --cpu-prof`, and prints the self time of the top
# functions (wasm functions by their Rust names).
#
#   scripts/profile-package.sh [single|batch] [ROWS]
#
# The names-kept wasm is larger and not what ships; compare shares within one profile, and
# speeds with scripts/bench-cpu-ab.sh on the shipped builds.
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-batch}
rows=${2:-30}
bash scripts/build-pkg.sh | grep "pkg size" || true
named=target/pkg-named
rm -rf "$named"
mkdir -p "$named"
cp -R pkg "$named/pkg"
# build-pkg.sh's wasm-opt line, with -g (names kept) and without --strip-debug.
node_modules/.bin/wasm-opt -g -Oz --converge --low-memory-unused -ocimfs=20 --enable-bulk-memory \
  --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals \
  --enable-reference-types --enable-multivalue --strip-producers \
  --strip-target-features target/wasq-bindgen/wasq_bg.wasm -o "$named/pkg/wasq_bg.wasm"
node --cpu-prof --cpu-prof-dir="$named/prof" bench/cycle-cpu.mjs "$named/pkg" default "$work" 200000
node bench/profile-top.mjs "$named/prof" "$rows"
