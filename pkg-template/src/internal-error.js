// An engine whose wasm stopped mid-call: a panic (a bug in wasq), or a trap with no panic before
// it (the wasm's memory exhausted, a stack overflow). Either way the call's changes are half made
// in a memory nobody may read again, so the engine refuses every later call with the error
// made here, and the wasm instance is replaced (src/bindings.js) for the engines made after.

/**
 * Whether `err`, thrown by a call into the wasm, means the instance stopped mid-call. A panic
 * arrives as the WasqInternalError the wasm's panic hook throws (src/wasm/panic.rs); a trap as a
 * WebAssembly.RuntimeError, or V8's RangeError for a stack overflow.
 */
export function stoppedWasm(err) {
  return (
    err?.name === "WasqInternalError" ||
    err instanceof WebAssembly.RuntimeError ||
    (err instanceof RangeError && err.message === "Maximum call stack size exceeded")
  );
}

/** The error an engine refuses calls with once its wasm stopped: the panic's own, or one naming the trap. */
export function internalError(err) {
  let out = err;
  if (err?.name !== "WasqInternalError") {
    out = new Error(
      `wasq internal error: the wasm stopped with no panic reported (${err?.name}: ${err?.message}), ` +
        "as when its memory is exhausted",
      { cause: err },
    );
    out.name = "WasqInternalError";
  }
  // What HTTP hosts answer with: a 5xx an SDK may retry, on an engine that is not this one.
  out.code = "InternalFailure";
  out.httpStatus = 500;
  return out;
}

/** The error of every call after the first: the same cause, and what to do about it. */
export function refusal(cause) {
  const err = new Error(`${cause.message}; this engine stopped and refuses every call: make a new Engine (over the same storage, to keep what it acknowledged)`, {
    cause,
  });
  err.name = "WasqInternalError";
  err.code = cause.code;
  err.httpStatus = cause.httpStatus;
  return err;
}
