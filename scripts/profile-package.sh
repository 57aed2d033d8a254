#!/usr/bin/env bash
# Where the package's cycle spends its time: builds pkg/, then a copy of it whose wasm keeps its
# function names (target/pkg-named: the same build steps, with wasm-opt's -g), runs
# bench/cycle-cpu.mjs in it under `node --cpu-prof`, and prints the self time of the top
# functions (wasm functions by their module path, as scripts/order-wasm-functions.mjs names them).
#
#   scripts/profile-package.sh [single|batch] [ROWS]
#
# The names-kept wasm is larger and not what ships; compare shares within one profile, and
# speeds with scripts/bench-cpu-ab.sh on the shipped builds.
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-batch}
rows=${2:-30}
bash scripts/build-pkg.sh | grep "largest" || true
named=target/pkg-named
rm -rf "$named"
mkdir -p "$named"
cp -R pkg "$named/pkg"
node scripts/order-wasm-functions.mjs target/wasq-bindgen/wasq_bg.wasm "$named/ordered.wasm"
# build-pkg.sh's wasm-opt line, with -g (names kept) and without --strip-debug.
node_modules/.bin/wasm-opt -g -Oz --converge --low-memory-unused -ocimfs=20 --enable-bulk-memory \
  --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals \
  --enable-reference-types --enable-multivalue --reorder-functions-by-name --strip-producers \
  --strip-target-features "$named/ordered.wasm" -o "$named/named.wasm"
# The import and export names, minified as in the shipped wasm (the minifier is deterministic,
# so the shipped glue matches), again with -g.
cp target/wasq-bindgen/wasq.js "$named/glue.js"
sed 's|"--minify-imports-and-exports-and-modules",|"-g", "--minify-imports-and-exports-and-modules",|' \
  scripts/minify-wasm-names.mjs > scripts/.minify-names-g.mjs
trap 'rm -f scripts/.minify-names-g.mjs' EXIT
node scripts/.minify-names-g.mjs "$named/named.wasm" "$named/glue.js"
cp "$named/named.wasm" "$named/pkg/wasq_bg.wasm"
node --cpu-prof --cpu-prof-dir="$named/prof" bench/cycle-cpu.mjs "$named/pkg" default "$work" 200000
node bench/profile-top.mjs "$named/prof" "$rows"
