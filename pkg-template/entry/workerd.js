// Cloudflare Workers (workerd): the runtime refuses to compile wasm from bytes, but imports a
// .wasm file as a compiled WebAssembly.Module, which instantiates synchronously.
import wasmModule from "../wasq_bg.wasm";
import { initSync, WasqCore, __wbg_reset_state } from "../wasq.js";
import { provide } from "../src/bindings.js";
import * as api from "../src/index.js";
import { FileStorage } from "../src/file-unavailable.js";
import { keepNames } from "../src/names.js";

initSync({ module: wasmModule });
provide({ WasqCore, resetState: __wbg_reset_state });

export * from "../src/index.js";

export { FileStorage };

/** Loading is synchronous on workerd; kept so `await init()` is portable. */
export async function init() {}

keepNames({ ...api, init, FileStorage });
