// Source of entry/node.cjs (bundled to CommonJS by scripts/build-pkg.sh, where __dirname exists).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { initSync, WasqCore } from "../wasq.js";
import { provide } from "../src/bindings.js";
import * as api from "../src/index.js";
import { FileStorage } from "../src/storage/file.js";
import { keepNames } from "../src/names.js";

initSync({ module: readFileSync(join(__dirname, "..", "wasq_bg.wasm")) });
provide({ WasqCore });

export * from "../src/index.js";

export { FileStorage };

/** Loading is synchronous on Node; kept so `await init()` is portable. */
export async function init() {}

keepNames({ ...api, init, FileStorage });
