// Node (ESM): the wasm is read and instantiated synchronously at import, so init() has nothing to do.
// First, before the glue: it gives Jest's jsdom globals a TextDecoder (see src/node-load.js).
import { readWasm } from "../src/node-load.js";
import { initSync, WasqCore, __wbg_reset_state } from "../wasq.js";
import { provide } from "../src/bindings.js";
import * as api from "../src/index.js";
import { FileStorage } from "../src/storage/file.js";
import { keepNames } from "../src/names.js";

initSync({ module: readWasm(new URL("../wasq_bg.wasm", import.meta.url)) });
provide({ WasqCore, resetState: __wbg_reset_state });

export * from "../src/index.js";

export { FileStorage };

/** Loading is synchronous on Node; kept so `await init()` is portable. */
export async function init() {}

keepNames({ ...api, init, FileStorage });
