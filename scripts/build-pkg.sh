#!/usr/bin/env bash
# Build the npm package in pkg/: Rust → wasm32 → wasm-bindgen (web target, one .wasm shared by
# every entry) → wasm-opt -Oz (npm binaryen; Debian's binaryen corrupts wasm-bindgen output) →
# pkg-template/'s sources bundled by esbuild around it (one bundle per runtime, a CommonJS one for
# `require`), and a size check.
set -euo pipefail
cd "$(dirname "$0")/.."

# The package's target is 150 KB gzipped (wasm + the JS one runtime loads). It is not met yet
# (see BENCHMARKS.md, "Package size"), so the build enforces a ceiling instead: the size as last
# measured plus a little, lowered as the wasm shrinks, so that no change makes it grow unnoticed.
readonly TARGET_BYTES=$((150 * 1024))
# KB, fractions allowed: 171.7 KB measured at the end of the tenth session's helper branch size11
# (events and `Value`s written by the crate's own JSON writer, the wasm's functions grouped by
# module before gzip; BENCHMARKS.md, "Package size → Tenth session (helper size11)"), then 172.1
# with the MessageId text written without a fill, loop or byte-wise mask (+0.4 KB for the
# package's cycle 1.04-1.05x, BENCHMARKS.md "wasm package → Tenth session"), then 172.7 with
# the JSON writer's bytes stored in place when the buffer has room (+0.6 KB for the batched
# cycle 1.07x); 174.8 after the eleventh session's fixes; 175.4 after the twelfth session's
# per-call lookups remembered and a standard queue's plain lane (+0.6 KB for the package's
# single cycle 1.10x and the native cycle 1.13x, BENCHMARKS.md "Package size -> Twelfth session"),
# 176.0 after the thirteenth session's receive rendered as it delivers (+0.3 KB) and receipt
# handles read as words natively (+0.1 KB in the shared code; "Package size -> Thirteenth
# session"); 176.6 after the sixteenth session's spec audit (policy byte quota, CreateQueue tag
# comparison, the move-task quota, Number limits: +0.5 KB; "Package size -> Sixteenth session").
# The nineteenth session raised it to 176.7 for a while and brought it back ("Package size ->
# Nineteenth session"). 177.2 with SigV4 hardened (#31: the body hashed rather than trusted, the
# signed-header rules, X-Amz-Expires, and their AWS refusals: +0.7 KB, 162,606 -> 163,308 bytes
# of gzipped wasm).
# 177.3 with source maps and whenPolling() ended by every receive (+0.1 KB).
# 179.0 with FileStorage streaming its log and holding an index instead of the values (Node
# entry only, +1.7 KB).
# 179.5 with engine.metrics() (per-queue counters; +0.4 KB wasm, +0.1 KB JS).
readonly LIMIT_KB=${WASQ_PKG_LIMIT_KB:-179.5}
readonly OUT=pkg
readonly BINDGEN_OUT=target/wasq-bindgen

scripts/ensure-tools.sh

for required in pkg-template/src/storage/memory.js pkg-template/src/consumer.js; do
  if [[ ! -f "$required" ]]; then
    echo "build-pkg: $required is missing (owned by the storage/consumer work)" >&2
    exit 1
  fi
done

# Size over speed for the shipped wasm (opt-level z: about a fifth smaller gzipped than 3), in
# its own target dir so native and test builds keep their artifacts.
#
# The standard library is rebuilt with the crate (`-Zbuild-std`, from rustup's rust-src), so that
# LTO and opt-level z reach into it, with std's `optimize_for_size` feature (its smaller sort and
# formatting code) and the `immediate-abort` panic strategy: a panic traps at once instead of
# formatting a message. The shipped wasm has no panic hook, so the message went nowhere before
# either, and a trap is what JS saw: behaviour is the same, 14 KB gzipped smaller (BENCHMARKS.md,
# "Package size → Seventh session"). These are nightly flags; RUSTC_BOOTSTRAP lets the machine's
# pinned stable compiler take them rather than fetching a nightly. Only this build uses them:
# `cargo test`, the benches and the server build stay plain stable.
# std's own crates stay at opt-level 3, as the prebuilt std is: at z the allocator and hash
# tables alone made the cycle 0.82x (+0.9 KB to keep them at 3).
# hashbrown is compiled with `-Zinline-mir-hint-threshold=60` (rustc's default is 100): rustc's
# MIR inliner folds fewer of its `#[inline]` helpers into the MIR that every map instantiation in
# the crate starts from (LLVM still inlines what it finds worth it). 0.9 KB gzipped smaller at the
# same speed. The same for every crate saved 1.4 KB but made the cycle 0.97x (alloc's share:
# 0.4 KB and all of the slowdown); core's alone +0.1 KB (BENCHMARKS.md, "Package size → Eighth
# session"). The gzipped size moves by ±0.3 KB from one threshold to the next: the value is a
# measured point, not a principle. (`-Zprofile-rustflags` sets it for that one crate.)
readonly WASM_TARGET_DIR=target/pkg-wasm
std_at_3=()
for crate in core alloc std hashbrown dlmalloc compiler_builtins panic_abort; do
  std_at_3+=(--config "profile.release.package.$crate.opt-level=3")
done
RUSTC_BOOTSTRAP=1 CARGO_PROFILE_RELEASE_OPT_LEVEL=z \
  RUSTFLAGS="-Zunstable-options -Cpanic=immediate-abort -Zlocation-detail=none" \
  cargo build --release --target wasm32-unknown-unknown --lib --target-dir "$WASM_TARGET_DIR" \
  -Zbuild-std=std,panic_abort -Zbuild-std-features=optimize_for_size "${std_at_3[@]}" \
  -Zprofile-rustflags --config 'profile.release.package.hashbrown.rustflags=["-Zinline-mir-hint-threshold=60"]'

rm -rf "$BINDGEN_OUT"
wasm-bindgen --target web --out-dir "$BINDGEN_OUT" --out-name wasq \
  "$WASM_TARGET_DIR/wasm32-unknown-unknown/release/wasq.wasm"

# The template's sources are bundled from a staging copy (with the wasm-bindgen glue beside them,
# where the entries import it); pkg/ gets the bundles and the package's other files, no sources.
readonly STAGE=target/pkg-stage
rm -rf "$OUT" "$STAGE"
mkdir -p "$OUT" "$STAGE"
cp -R pkg-template/. "$STAGE"/
cp "$BINDGEN_OUT/wasq.js" "$STAGE/wasq.js"
# The glue's default wasm URL is relative to the glue's own file. Bundled, that code lands one
# directory down (entry/, chunks/: every output is exactly one level deep, as the entries' own
# `new URL("../wasq_bg.wasm", import.meta.url)` already assume), so point it one level up: unused
# at run time (every entry names the wasm), but a bundler that resolves such URLs would otherwise
# look for entry/wasq_bg.wasm.
readonly GLUE_URL="new URL('wasq_bg.wasm', import.meta.url)"
if ! grep -qF "$GLUE_URL" "$STAGE/wasq.js"; then
  echo "build-pkg: the wasm-bindgen glue no longer has $GLUE_URL; check its wasm URL" >&2
  exit 1
fi
sed -i "s|new URL('wasq_bg.wasm', import.meta.url)|new URL('../wasq_bg.wasm', import.meta.url)|" "$STAGE/wasq.js"
cp pkg-template/package.json pkg-template/README.md pkg-template/index.d.ts "$OUT"/
# The features rustc's wasm32 target emits by default; wasm-opt must accept them to optimise.
# --converge repeats -Oz until it stops shrinking; --low-memory-unused lets it fold constant
# addresses into load/store offsets (safe: rustc puts the stack first, so the low 1 KB is the far
# end of a 1 MB stack, which would overflow and trap before reaching it).
# -ocimfs=20: a function with one caller is inlined into it only when it is tiny. Binaryen's
# default inlines every one, and the wasm then gzips ~15 KB worse (the inlined bodies, spread
# through large callers, compress less well than the same code as functions).
# --strip-target-features: the features section is for linkers; engines ignore it (0.1 KB).
# --reorder-functions-by-name, last, on names that scripts/order-wasm-functions.mjs made of each
# function's module path and position: the functions grouped by module, in the compiler's order
# within each, where deflate's 32 KB window finds the likenesses of one module's code: 1.3 KB
# gzipped at the same code (sorted by their full names instead: 0.6 KB). Ordering by use count,
# `--reorder-functions`, shrinks the raw wasm by 3 KB but gzips 4 KB worse: the order is worth
# more than the call indices' LEB bytes (BENCHMARKS.md, "Package size → Tenth session").
node scripts/order-wasm-functions.mjs "$BINDGEN_OUT/wasq_bg.wasm" "$BINDGEN_OUT/wasq_bg.ordered.wasm"
node_modules/.bin/wasm-opt -Oz --converge --low-memory-unused -ocimfs=20 --enable-bulk-memory --enable-nontrapping-float-to-int \
  --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue \
  --reorder-functions-by-name --strip-debug --strip-producers --strip-target-features \
  "$BINDGEN_OUT/wasq_bg.ordered.wasm" -o "$OUT/wasq_bg.wasm"
# The names the wasm and the glue know each other by (hashed shim names, a module named after a
# file), shortened in both: ~2 KB gzipped.
node scripts/minify-wasm-names.mjs "$OUT/wasq_bg.wasm" "$STAGE/wasq.js"

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
mkdir -p "$OUT/www"
cp www/*.html www/*.js www/*.css www/README.md "$OUT/www"/
# The JSON Schema of `wasq serve --config` files, beside the command (bin/ is in `files`).
cp pkg-template/bin/config.schema.json "$OUT/bin/config.schema.json"

# Size budget: the wasm plus the JavaScript one runtime loads (the largest of the entries), each
# file gzipped on its own. An entry's JS is its module graph: the bundle and any shared chunk it
# imports.
node --input-type=module - "$OUT" "$LIMIT_KB" "$TARGET_BYTES" <<'JS'
import { gzipSync } from "node:zlib";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
const [out, limit, target] = [process.argv[2], Math.round(Number(process.argv[3]) * 1024), Number(process.argv[4])];
if (!(limit > 0)) {
  console.error(`pkg size: WASQ_PKG_LIMIT_KB=${process.argv[3]} is not a size in KB`);
  process.exit(1);
}
const gz = (file) => gzipSync(readFileSync(file), { level: 9 }).length;
// Follow relative imports from an entry to collect the JS it loads: static ones, and dynamic
// ones too (none today; counted as loading, the worst case). A file that is not there throws.
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
const graphJs = (entry) => [...graph(join(out, entry))].reduce((sum, f) => sum + gz(f), 0);
let worst = 0;
for (const entry of ["entry/node.js", "entry/browser.js", "entry/workerd.js"]) {
  const js = graphJs(entry);
  worst = Math.max(worst, js);
  console.log(`pkg size: ${entry}: wasm ${kb(wasm)} + JS ${kb(js)} = ${kb(wasm + js)} gzipped`);
}
// The CommonJS entry is one self-contained bundle (it `require`s only Node's own modules).
const cjs = gz(join(out, "entry/node.cjs"));
console.log(`pkg size: entry/node.cjs: wasm ${kb(wasm)} + JS ${kb(cjs)} = ${kb(wasm + cjs)} gzipped`);
worst = Math.max(worst, cjs);
// Not in the budget (an optional layer over the workerd entry, which it loads too): shown so
// that its growth is seen.
const worker = graphJs("worker/index.js");
console.log(`pkg size: worker/index.js (wasq/worker, not in the budget): wasm ${kb(wasm)} + JS ${kb(worker)} = ${kb(wasm + worker)} gzipped`);
console.log(
  `pkg size: largest ${kb(wasm + worst)}; target ${kb(target)}: ${wasm + worst <= target ? "met" : "NOT MET"}`,
);
if (wasm + worst > limit) {
  console.error(`pkg size: ${kb(wasm + worst)} is over the ${kb(limit)} ceiling (a regression)`);
  process.exit(1);
}
JS
echo "build-pkg: $OUT/ ready"
