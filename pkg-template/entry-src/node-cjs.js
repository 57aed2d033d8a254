// Source of entry/node.cjs (bundled to CommonJS by scripts/build-pkg.sh, where __dirname exists).
// First, before the glue: it gives Jest's jsdom globals a TextDecoder (see src/node-load.js).
import { readWasm } from "../src/node-load.js";
import { join } from "node:path";
import { initSync, WasqCore, __wbg_reset_state } from "../wasq.js";
import { provide } from "../src/bindings.js";
import * as api from "../src/index.js";
import { FileStorage } from "../src/storage/file.js";
import { keepNames } from "../src/names.js";

initSync({ module: readWasm(join(__dirname, "..", "wasq_bg.wasm")) });
provide({ WasqCore, resetState: __wbg_reset_state });

export * from "../src/index.js";

export { FileStorage };

/** Loading is synchronous on Node; kept so `await init()` is portable. */
export async function init() {}

keepNames({ ...api, init, FileStorage });
