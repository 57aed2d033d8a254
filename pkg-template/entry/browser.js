// Browsers, Deno and bundlers: the wasm is fetched, so `await init()` must finish before the
// first `new Engine()`. No top-level await: bundlers split such library entries badly.
import initWasm, { WasqCore, __wbg_reset_state } from "../wasq.js";
import { provide } from "../src/bindings.js";
import * as api from "../src/index.js";
import { FileStorage } from "../src/file-unavailable.js";
import { keepNames } from "../src/names.js";

export * from "../src/index.js";

export { FileStorage };

let loading = null;

/**
 * Fetch and instantiate the wasm once; later calls return the same promise.
 * @param {RequestInfo | URL | Response | BufferSource | WebAssembly.Module} [source] where to load
 *   the wasm from; default: wasq_bg.wasm next to this package's files
 */
export function init(source) {
  loading ??= initWasm({ module_or_path: source ?? new URL("../wasq_bg.wasm", import.meta.url) }).then(
    () => provide({ WasqCore, resetState: __wbg_reset_state }),
    (err) => {
      loading = null; // a failed fetch may be retried
      throw err;
    },
  );
  return loading;
}

keepNames({ ...api, init, FileStorage });
