// Which compiled core the wrapper talks to. Each entry point (Node, browser, workerd) loads the
// wasm its own way and hands the resulting classes here, so the wrapper itself is shared.

let api = null;
// Counts the wasm instances: a core made on an earlier one no longer exists.
let generation = 0;
// Why no fresh instance could be made after a trap, if so.
let unusable = null;

/** Called once by an entry point after its wasm is instantiated. */
export function provide(glue) {
  api = glue;
}

/** The instantiated bindings; throws a clear error when `init()` has not finished yet. */
export function wasm() {
  if (unusable !== null) throw unusable;
  if (api === null) {
    throw new Error("wasq is not initialised: `await init()` once before creating an Engine");
  }
  return api;
}

/** Which wasm instance is current (see `restartWasm`). */
export function wasmGeneration() {
  return generation;
}

/**
 * Replace the wasm instance by a fresh one from the same module, after a trap left the current
 * one's memory torn (a panic mid-change, or the memory exhausted: a new engine there would find
 * no room either). Every core of the old instance is gone with it: engines over storage rebuild
 * from it, the others are refused (src/engine.js).
 */
export function restartWasm(cause) {
  generation++;
  try {
    api.resetState();
  } catch (err) {
    unusable = new Error(`wasq could not restart its wasm after an internal error: ${err?.message ?? err}`, { cause });
    unusable.name = "WasqInternalError";
  }
}
