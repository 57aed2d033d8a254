// Which compiled core the wrapper talks to. Each entry point (Node, browser, workerd) loads the
// wasm its own way and hands the resulting classes here, so the wrapper itself is shared.

let api = null;

/** Called once by an entry point after its wasm is instantiated. */
export function provide(glue) {
  api = glue;
}

/** The instantiated bindings; throws a clear error when `init()` has not finished yet. */
export function wasm() {
  if (api === null) {
    throw new Error("wasq is not initialised: `await init()` once before creating an Engine");
  }
  return api;
}
