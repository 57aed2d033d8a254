// What the JS around the core must agree on with it (the action list, the message and move-task
// actions, the settable attributes, the batch limits and id rule), read from the wasm core rather
// than restated here: the Engine's camelCase methods, the server's metrics labels and the
// Worker's routing all take them from this one place. Read on first use, never at module load:
// in browsers the wasm exists only once `init()` has finished.

import { wasm } from "./bindings.js";

let facts = null;

/**
 * `{ actions, messageActions, moveActions, settable }` (Sets) and `maxBatchBytes`, read once: none
 * of it changes at run time. The message actions are the data plane, which goes to a queue's
 * partitions; the move-task actions are the ones a Worker's directory runs across partitions.
 */
export function engineFacts() {
  if (facts === null) {
    const f = JSON.parse(wasm().WasqCore.engineFacts());
    facts = {
      actions: new Set(f.actions),
      messageActions: new Set(f.messageActions),
      moveActions: new Set(f.moveActions),
      settable: new Set(f.settable),
      maxBatchBytes: f.maxBatchBytes,
    };
  }
  return facts;
}

/** Whether the engine's batch-shape check (1–10 entries, ids well formed and distinct) passes. */
export function batchIdsValid(ids) {
  return wasm().WasqCore.batchIdsValid(JSON.stringify(ids));
}
