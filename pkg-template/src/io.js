// The one way actions reach the core (WasqCore.dispatch): the action's name and its AWS JSON
// parameters are encoded by TextEncoder straight into the core's scratch buffer in wasm memory,
// and the answer decoded from where it lies. The bindings' own string passing allocates in the
// wasm for every string, copies ASCII a character at a time in JS, and frees the answer
// afterwards: a cycle through it ran ~10 % slower (scripts/bench-compare.sh, CPU time).

import { wasmGeneration } from "./bindings.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
let memory = null;
// The wasm instance `memory` belongs to: a fresh one (src/bindings.js, restartWasm) has its own.
let memoryOf = -1;

/**
 * Run an action (or, with `internal`, one of the engine's internal operations) with its AWS JSON
 * parameters; answers the AWS JSON text, or throws the engine's error.
 */
export function dispatchText(core, now, action, json, context, internal = false) {
  if (memoryOf !== wasmGeneration()) {
    memory = core.constructor.memory();
    memoryOf = wasmGeneration();
  }
  // UTF-8 takes at most 3 bytes per UTF-16 unit.
  const room = action.length + 3 * json.length;
  const at = core.ioBuffer(room);
  // A fresh view each time: the memory's buffer is replaced whenever the wasm grows it.
  const view = new Uint8Array(memory.buffer, at, room);
  const actionLen = encoder.encodeInto(action, view).written;
  const paramsLen = encoder.encodeInto(json, view.subarray(actionLen)).written;
  const len = core.dispatch(now, actionLen, paramsLen, context, internal);
  return decoder.decode(new Uint8Array(memory.buffer, core.ioAddress(), len));
}
