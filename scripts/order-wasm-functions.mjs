// Rename every function in a wasm's name section to its module path plus its position, so that
// wasm-opt's `--reorder-functions-by-name` then groups the functions by module (all of
// `alloc::collections::btree::node`, all of `wasq::engine`, …) while keeping, within each group,
// the order the compiler emitted them in.
//
// Why: gzip finds repeats only within its 32 KB window, and code of one module (the instantiations
// of one generic type, one engine file's functions) is alike. Grouped this way the shipped wasm
// gzips ~1.3 KB smaller than in the compiler's order, and ~0.7 KB smaller than sorted by full
// name (BENCHMARKS.md, "Package size → Tenth session"). Only the order changes: the names are
// stripped from the shipped wasm afterwards.
//
// usage: node scripts/order-wasm-functions.mjs in.wasm out.wasm
import { readFileSync, writeFileSync } from "node:fs";

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error("usage: order-wasm-functions.mjs in.wasm out.wasm");
  process.exit(1);
}
const wasm = readFileSync(input);

function readU32(buf, at) {
  let value = 0;
  let shift = 0;
  let byte;
  do {
    byte = buf[at++];
    value |= (byte & 0x7f) << shift;
    shift += 7;
  } while (byte & 0x80);
  return [value >>> 0, at];
}

function u32(n) {
  const out = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n) byte |= 0x80;
    out.push(byte);
  } while (n);
  return Buffer.from(out);
}

const withLength = (bytes) => Buffer.concat([u32(bytes.length), bytes]);

// The module path a (demangled) Rust name starts with: `<wasq[3830…]::engine::Engine>::send`
// → `wasq::engine`, `<core[…]::iter::adapters::map::Map<…> as …>::next` →
// `core::iter::adapters::map`; a name that is no path (`__wbindgen_malloc`) is its own group.
function modulePath(name) {
  const plain = name.replace(/\[[0-9a-f]+\]/g, "");
  return plain.match(/[a-z_][a-z0-9_]*(::[a-z_][a-z0-9_]*)*/)?.[0] ?? "";
}

// Function names: a vector of (index, name) in the name section's subsection 1.
function renameFunctions(body) {
  let [count, at] = readU32(body, 0);
  const entries = [u32(count)];
  for (let i = 0; i < count; i++) {
    let index, length;
    [index, at] = readU32(body, at);
    [length, at] = readU32(body, at);
    const name = body.subarray(at, at + length).toString("utf8");
    at += length;
    entries.push(u32(index), withLength(Buffer.from(`${modulePath(name)} ${String(index).padStart(8, "0")}`)));
  }
  if (at !== body.length) throw new Error("order-wasm-functions: malformed function names");
  return Buffer.concat(entries);
}

const parts = [wasm.subarray(0, 8)];
let renamed = 0;
let at = 8;
while (at < wasm.length) {
  const id = wasm[at];
  const [size, start] = readU32(wasm, at + 1);
  const end = start + size;
  if (id === 0) {
    const [nameLength, nameAt] = readU32(wasm, start);
    if (wasm.subarray(nameAt, nameAt + nameLength).toString("utf8") === "name") {
      const subsections = [];
      let p = nameAt + nameLength;
      while (p < end) {
        const sub = wasm[p];
        const [subSize, subStart] = readU32(wasm, p + 1);
        const subBody = wasm.subarray(subStart, subStart + subSize);
        if (sub === 1) {
          subsections.push(Buffer.from([1]), withLength(renameFunctions(subBody)));
          renamed++;
        } else {
          subsections.push(wasm.subarray(p, subStart + subSize));
        }
        p = subStart + subSize;
      }
      parts.push(Buffer.from([0]), withLength(Buffer.concat([withLength(Buffer.from("name")), ...subsections])));
      at = end;
      continue;
    }
  }
  parts.push(wasm.subarray(at, end));
  at = end;
}
if (renamed !== 1) {
  // Without names, --reorder-functions-by-name would order by index names of binaryen's own.
  console.error(`order-wasm-functions: ${input} has no function names (wasm-bindgen keeps them by default)`);
  process.exit(1);
}
writeFileSync(output, Buffer.concat(parts));
