// SQS JSON through the core's scratch buffer (WasqCore.dispatchIo): the action and parameters are
// encoded by TextEncoder straight into wasm memory and the answer decoded from where it lies.
// The bindings' own string passing allocates in the wasm for every string, copies ASCII a
// character at a time in JS, and frees the answer afterwards.

import { wasmGeneration } from "./bindings.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
let memory = null;
// The wasm instance `memory` belongs to: a fresh one (src/bindings.js, restartWasm) has its own.
let memoryOf = -1;

/** `core.dispatch(now, action, json, context)`, answering the same JSON text (or throwing the same error). */
export function dispatchText(core, now, action, json, context) {
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
  const len = core.dispatchIo(now, actionLen, paramsLen, context);
  return decoder.decode(new Uint8Array(memory.buffer, core.ioAddress(), len));
}
