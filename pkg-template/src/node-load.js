// What the Node entries need before the wasm glue loads: the wasm's bytes, and a global scope with
// TextEncoder/TextDecoder. Jest's jsdom environment (`testEnvironment: "jsdom"`, the usual one for
// front-end tests) runs each test file with a jsdom window as its globals, and that window has no
// TextDecoder or TextEncoder; the glue builds both as it loads, so `require("wasq")` there threw
// "ReferenceError: TextDecoder is not defined" before a test could run. The entries import this
// module before the glue, so its top level runs first. Only missing names are defined: a scope
// that has them keeps its own. (The entries use readWasm: the package's `sideEffects` names only
// entry/ and chunks/, and esbuild drops a module imported for its side effects alone.)
import { readFileSync } from "node:fs";
import { TextDecoder, TextEncoder } from "node:util";

globalThis.TextDecoder ??= TextDecoder;
globalThis.TextEncoder ??= TextEncoder;

/** The wasm's bytes, read synchronously. */
export function readWasm(path) {
  return readFileSync(path);
}
