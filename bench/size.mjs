// A built package's size as its budget counts it: the wasm plus the JavaScript one runtime loads
// (the largest of the entries), each file gzipped on its own at level 9. An entry's JS is its
// module graph: the bundle and any chunk it imports. The same rule as the budget check at the end
// of scripts/build-pkg.sh, here for any package directory, so that two builds can be compared.
//
//   node bench/size.mjs [PKG_DIR]     prints one JSON line

import { gzipSync } from "node:zlib";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const gz = (file) => gzipSync(readFileSync(file), { level: 9 }).length;

// Relative imports from an entry, static and dynamic (a dynamic one counts as loaded: the worst case).
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

/** Gzipped bytes: `wasm`, each entry's JS, and `largest` (wasm + the largest entry's JS). */
export function packageSize(dir) {
  const wasm = gz(join(dir, "wasq_bg.wasm"));
  const entries = {};
  for (const entry of ["entry/node.js", "entry/browser.js", "entry/workerd.js"]) {
    entries[entry] = [...graph(join(dir, entry))].reduce((sum, f) => sum + gz(f), 0);
  }
  // The CommonJS entry is one self-contained bundle (it `require`s only Node's own modules).
  if (existsSync(join(dir, "entry/node.cjs"))) entries["entry/node.cjs"] = gz(join(dir, "entry/node.cjs"));
  return { wasm, entries, largest: wasm + Math.max(...Object.values(entries)) };
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  console.log(JSON.stringify(packageSize(resolve(process.argv[2] ?? "pkg"))));
}
