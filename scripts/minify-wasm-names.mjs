// Shortens the names the wasm and its wasm-bindgen glue know each other by, in both files.
//
//   node scripts/minify-wasm-names.mjs WASM GLUE_JS
//
// wasm-bindgen names every import after its Rust shim plus a 16-digit hash
// (`__wbg_get_d7176cfb76d71114`), under the module "./wasq_bg.js", and every export after the
// class and method (`wasqcore_dispatchIo`). Each name is written twice, in the wasm's import or
// export section and in the glue, and the hashes are random digits gzip cannot shrink: ~2 KB of
// the package gzipped (BENCHMARKS.md, "Package size → Eighth session"). Binaryen's
// `--minify-imports-and-exports-and-modules` renames them in the wasm; this script then renames
// them in the glue to match.
//
// The mapping is read back from the two modules themselves, not from the mapping wasm-opt prints
// (which did not match its output here): a rename keeps the order and kind of every import and
// export, so the i-th import of the old module is the i-th of the new one. Every rename must
// apply exactly where the glue names it, or the build fails here rather than at run time.
import { readFileSync, writeFileSync, renameSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const [wasmPath, gluePath] = process.argv.slice(2);
if (!wasmPath || !gluePath) {
  console.error("usage: minify-wasm-names.mjs WASM GLUE_JS");
  process.exit(2);
}
const fail = (message) => {
  console.error(`minify-wasm-names: ${message}`);
  process.exit(1);
};

const wasmOpt = fileURLToPath(new URL("../node_modules/.bin/wasm-opt", import.meta.url));
const features = ["bulk-memory", "nontrapping-float-to-int", "sign-ext", "mutable-globals", "reference-types", "multivalue"];
const minified = `${wasmPath}.minified`;
execFileSync(wasmOpt, [
  ...features.map((f) => `--enable-${f}`),
  "--minify-imports-and-exports-and-modules",
  wasmPath,
  "-o",
  minified,
], { stdio: ["ignore", "ignore", "inherit"] });

const describe = (path) => {
  const module = new WebAssembly.Module(readFileSync(path));
  return { imports: WebAssembly.Module.imports(module), exports: WebAssembly.Module.exports(module) };
};
const before = describe(wasmPath);
const after = describe(minified);
if (before.imports.length !== after.imports.length || before.exports.length !== after.exports.length) {
  fail("the minified wasm has other imports or exports than the original");
}

let glue = readFileSync(gluePath, "utf8");
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
/** Replace every match of `pattern` by `replacement`, and require `count` matches (or ≥ 1). */
const rename = (pattern, replacement, what, count) => {
  const matches = glue.match(pattern)?.length ?? 0;
  if (count === undefined ? matches === 0 : matches !== count) {
    fail(`${what}: ${matches} places in the glue, expected ${count ?? "at least one"}`);
  }
  glue = glue.replace(pattern, replacement);
};

const modules = new Map();
before.imports.forEach((old, i) => {
  const now = after.imports[i];
  if (old.kind !== now.kind) fail(`import ${i} changed kind (${old.kind} → ${now.kind})`);
  const known = modules.get(old.module);
  if (known !== undefined && known !== now.module) fail(`module ${old.module} got two names`);
  modules.set(old.module, now.module);
  // The glue's import object: `    __wbg_get_d7176cfb76d71114: function(arg0) {`, one key each.
  rename(new RegExp(`(?<=^\\s*)${escape(old.name)}(?=: )`, "gm"), now.name, `import ${old.name}`, 1);
});
for (const [old, now] of modules) {
  rename(new RegExp(`"${escape(old)}"(?=: import\\d+)`, "g"), JSON.stringify(now), `module ${old}`, 1);
}
const exported = new Set(after.exports.map((e) => e.name));
before.exports.forEach((old, i) => {
  const now = after.exports[i];
  if (old.kind !== now.kind) fail(`export ${i} changed kind (${old.kind} → ${now.kind})`);
  // Every use is a property read of the instance's exports: `wasm.wasqcore_dispatchIo(`.
  const uses = new RegExp(`(?<=\\bwasm\\.)${escape(old.name)}\\b`, "g");
  if (glue.match(uses)) rename(uses, now.name, `export ${old.name}`);
});
// Anything still named the old way would now be undefined at run time.
for (const old of before.exports) {
  if (!exported.has(old.name) && new RegExp(`\\bwasm\\.${escape(old.name)}\\b`).test(glue)) {
    fail(`the glue still reads wasm.${old.name}`);
  }
}

writeFileSync(gluePath, glue);
renameSync(minified, wasmPath);
