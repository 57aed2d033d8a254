#!/usr/bin/env bash
# Build the npm package in pkg/: Rust → wasm32 → wasm-bindgen (web target, one .wasm shared by
# every entry) → wasm-opt -Oz (npm binaryen; Debian's binaryen corrupts wasm-bindgen output) →
# pkg-template/'s sources bundled by esbuild around it (one bundle per runtime, a CommonJS one for
# `require`), and a size budget.
set -euo pipefail
cd "$(dirname "$0")/.."

# The size budget, KB gzipped: the wasm plus the JavaScript one runtime loads (the largest entry).
readonly BUDGET_KB=210
readonly OUT=${WASQ_PKG_OUT:-pkg}
readonly BINDGEN_OUT=target/wasq-bindgen

scripts/ensure-tools.sh

for required in pkg-template/src/storage/memory.js pkg-template/src/consumer.js; do
  if [[ ! -f "$required" ]]; then
    echo "build-pkg: $required is missing (owned by the storage/consumer work)" >&2
    exit 1
  fi
done

# Size over speed for the shipped wasm (opt-level z: about a fifth smaller gzipped than 3), in
# its own target dir so native and test builds keep their artifacts. Plain stable cargo: the
# build must keep working with the next compiler release. WASQ_PKG_FEATURES adds cargo features:
# the test package (scripts/build-test-pkg.sh) is this build with `test-hooks`, which users never get.
readonly WASM_TARGET_DIR=target/pkg-wasm${WASQ_PKG_FEATURES:+-features}
CARGO_PROFILE_RELEASE_OPT_LEVEL=z cargo build --release --target wasm32-unknown-unknown --lib \
  --target-dir "$WASM_TARGET_DIR" ${WASQ_PKG_FEATURES:+--features "$WASQ_PKG_FEATURES"}

rm -rf "$BINDGEN_OUT"
# --experimental-reset-state-function: after a trap (a panic, memory exhausted) the instance's
# memory may be torn; the wrapper starts a fresh instance with __wbg_reset_state (src/bindings.js).
# --omit-default-module-path: every entry names the wasm's URL itself; the glue's own default
# would point next to the bundle, where there is no wasm.
wasm-bindgen --target web --experimental-reset-state-function --omit-default-module-path \
  --out-dir "$BINDGEN_OUT" --out-name wasq "$WASM_TARGET_DIR/wasm32-unknown-unknown/release/wasq.wasm"

# The template's sources are bundled from a staging copy (with the wasm-bindgen glue beside them,
# where the entries import it); pkg/ gets the bundles and the package's other files, no sources.
readonly STAGE=target/pkg-stage
rm -rf "$OUT" "$STAGE"
mkdir -p "$OUT" "$STAGE"
cp -R pkg-template/. "$STAGE"/
cp "$BINDGEN_OUT/wasq.js" "$STAGE/wasq.js"
cp pkg-template/package.json pkg-template/README.md pkg-template/index.d.ts "$OUT"/
# The features rustc's wasm32 target emits by default; wasm-opt must accept them to optimise.
# --converge repeats -Oz until it stops shrinking; --low-memory-unused lets it fold constant
# addresses into load/store offsets (safe: rustc puts the stack first, so the low 1 KB is the far
# end of a 1 MB stack, which would overflow and trap before reaching it).
# -ocimfs=20: a function with one caller is inlined into it only when it is tiny. Binaryen's
# default inlines every one, and the wasm then gzips ~15 KB worse (the inlined bodies, spread
# through large callers, compress less well than the same code as functions).
# --strip-target-features: the features section is for linkers; engines ignore it (0.1 KB).
node_modules/.bin/wasm-opt -Oz --converge --low-memory-unused -ocimfs=20 --enable-bulk-memory --enable-nontrapping-float-to-int \
  --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue \
  --strip-debug --strip-producers --strip-target-features \
  "$BINDGEN_OUT/wasq_bg.wasm" -o "$OUT/wasq_bg.wasm"

# The package version follows the crate's.
version=$(sed -n 's/^version *= *"\(.*\)"/\1/p' Cargo.toml | head -n1)
node -e '
  const fs = require("fs");
  const file = process.argv[1];
  const pkg = JSON.parse(fs.readFileSync(file, "utf8"));
  pkg.version = process.argv[2];
  fs.writeFileSync(file, JSON.stringify(pkg, null, 2) + "\n");
' "$OUT/package.json" "$version"

# Each runtime loads its JS as one bundle: gzip then sees one stream, and esbuild drops the module
# boundaries' imports, exports and unmangled names, and the glue's unused code (5-6 KB gzipped
# less than the same sources minified as separate modules). Minified: comments and long local
# names are most of the bytes. Not --keep-names: it restores every function's `.name` at 1 KB
# gzipped; the public classes and functions get theirs from src/names.js instead.
# Every module exists once per bundle, so what must be one object in a runtime (the Engine
# class, its private symbols, the one wasm instance in bindings.js) is:
# - browsers: entry/browser.js, alone.
# - Node: entry/node.cjs, which `import` reaches too (entry/node.js re-exports it, see
#   entry-src/node-esm.js), so a process that both imports and requires wasq has one copy; the
#   CLI (bin/wasq.mjs) is a bundle of its own, a separate program.
# - workerd: entry/workerd.js and the Worker (worker/index.js), which a Worker imports together
#   and whose modules must be the same objects (worker/host.js uses the Engine's private
#   symbols, worker/router.js the wasm from bindings.js), are one build with code splitting:
#   what both use is one shared module, chunks/workerd.js (named without a hash, so a build that
#   ever splits into two chunks fails here instead of shipping a graph nobody measured).
esbuild=node_modules/.bin/esbuild
# --sourcemap: an error inside wasq points at pkg-template's file and line (with Node's
# --enable-source-maps, or a browser's devtools) rather than column 15503 of a one-line bundle.
# The maps are separate files, loaded only by a debugger: the bundles grow by one comment line.
bundle=(--bundle --format=esm --minify --sourcemap --log-level=warning)
into=(--outbase="$STAGE" --outdir="$OUT")
"$esbuild" "$STAGE/entry/browser.js" "${bundle[@]}" "${into[@]}" --platform=browser
"$esbuild" "$STAGE/bin/wasq.mjs" "${bundle[@]}" "${into[@]}" --platform=node --out-extension:.js=.mjs
"$esbuild" "$STAGE/entry/workerd.js" "$STAGE/worker/index.js" "${bundle[@]}" "${into[@]}" --platform=neutral \
  --splitting --chunk-names=chunks/workerd --external:../wasq_bg.wasm
# CommonJS consumers (`require("wasq")`) get one self-contained bundle of the same ESM sources.
"$esbuild" "$STAGE/entry-src/node-cjs.js" --bundle --platform=node --format=cjs --target=node20 \
  --minify --sourcemap --log-level=warning --log-override:empty-import-meta=silent \
  --outfile="$OUT/entry/node.cjs"
# Its comments stay in the source: shipped, they were 0.3 KB gzipped of the Node entry's budget.
grep -v '^//' "$STAGE/entry-src/node-esm.js" > "$OUT/entry/node.js"
# Not shipped: the Node entry with the internals that white-box tests and benchmarks use (WasqCore,
# dispatchText, COMMIT_PACKED, packRecords) as exports, all from one bundle (entry-src/node-internal.js).
"$esbuild" "$STAGE/entry-src/node-internal.js" "${bundle[@]}" --platform=node \
  --outfile="$OUT/internal/node.js"
# The maps name the staging copy the bundles were built from (../../target/pkg-stage/…, a path
# only this build had); name pkg-template's files instead, where the sources are in the repo.
# (Every output is one level deep, so one prefix fits every map.) Their text is in the maps.
node -e '
  const fs = require("fs");
  for (const file of process.argv.slice(1)) {
    const map = JSON.parse(fs.readFileSync(file, "utf8"));
    map.sources = map.sources.map((s) => s.replace(/^\.\.\/\.\.\/target\/pkg-stage\//, "../pkg-template/"));
    fs.writeFileSync(file, JSON.stringify(map));
  }
' $(find "$OUT" -name '*.map')
# TypeScript resolves `require` types from a .d.cts next to the .d.ts.
cp "$OUT/index.d.ts" "$OUT/index.d.cts"
cp "$STAGE/worker/index.d.ts" "$OUT/worker/index.d.ts"
# The playground page and its <wasq-playground> element ship as they are (plain ES modules, no
# build step of their own): `import "wasq/playground"` for docs sites, and the page that
# `npx wasq serve` shows at / (bin/wasq.mjs looks for it beside bin/ when not run from a
# checkout). The element finds the package one directory up from itself. Its README is the
# embedding and scenario-format guide.
# The element adopts its stylesheet from a module (www/style.css.js, git-ignored), generated here
# from www/style.css, the one source the page links to: a bundler takes a module in with the
# element, where a stylesheet fetched from beside element.js is not there once bundled. Written
# into www/ too, for the element served from the repository (`wasq serve --www www/`).
node -e '
  const fs = require("fs");
  const css = fs.readFileSync(process.argv[1], "utf8");
  fs.writeFileSync(process.argv[2], "// Generated from style.css by scripts/build-pkg.sh; edit that file.\nexport default " + JSON.stringify(css) + ";\n");
' www/style.css www/style.css.js
mkdir -p "$OUT/www"
cp www/*.html www/*.js www/*.css www/README.md "$OUT/www"/
# The JSON Schema of `wasq serve --config` files, beside the command (bin/ is in `files`).
cp pkg-template/bin/config.schema.json "$OUT/bin/config.schema.json"

# Size budget: the wasm plus the JavaScript one runtime loads (the largest of the entries), each
# file gzipped on its own. An entry's JS is its module graph: the bundle and any shared chunk it
# imports. One line, every build; an error only past the budget.
node --input-type=module - "$OUT" "$BUDGET_KB" <<'JS'
import { gzipSync } from "node:zlib";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
const [out, budgetKb] = [process.argv[2], Number(process.argv[3])];
const gz = (file) => gzipSync(readFileSync(file), { level: 9 }).length;
// Follow relative imports from an entry to collect the JS it loads: static ones, and dynamic
// ones too (counted as loading, the worst case). A file that is not there throws.
function graph(entry, seen = new Set()) {
  const file = resolve(entry);
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(file, "utf8");
  // Minified sources have no space after the keyword: `import{a}from"./b.js"`, `import"./c.js"`.
  const imports = /\b(?:import|export)\b(?:[^"';]*?\bfrom)?\s*["'](\.[^"']+)["']|\bimport\(\s*["'](\.[^"']+)["']\s*\)/g;
  for (const m of text.matchAll(imports)) {
    const spec = m[1] ?? m[2];
    if (/\.c?js$/.test(spec)) graph(join(dirname(file), spec), seen);
  }
  return seen;
}
const wasm = gz(join(out, "wasq_bg.wasm"));
const kb = (n) => (n / 1024).toFixed(1) + " KB";
// The CommonJS entry is one self-contained bundle (it `require`s only Node's own modules).
const entries = ["entry/node.js", "entry/browser.js", "entry/workerd.js", "entry/node.cjs"];
const [largest, js] = entries
  .map((entry) => [entry, [...graph(join(out, entry))].reduce((sum, f) => sum + gz(f), 0)])
  .reduce((a, b) => (b[1] > a[1] ? b : a));
const total = wasm + js;
console.log(`pkg size: ${kb(total)} gzipped (${largest}: wasm ${kb(wasm)} + JS ${kb(js)}), budget ${budgetKb} KB`);
if (total > budgetKb * 1024) {
  console.error(`pkg size: ${kb(total)} is over the ${budgetKb} KB budget`);
  process.exit(1);
}
JS
echo "build-pkg: $OUT/ ready"
