// What the Worker must agree on with the engines it fronts (the action list, the settable
// attributes, the batch limits and id rule), read from the wasm core rather than restated here.
// The entry module instantiates the wasm when it is imported, so the core is there on first use.

import { wasm } from "../src/bindings.js";

let facts = null;

/**
 * `{ actions, messageActions, settable }` (Sets) and `maxBatchBytes`, read once: none of it
 * changes at run time. The message actions are the data plane, which goes to a queue's partitions.
 */
export function engineFacts() {
  if (facts === null) {
    const f = JSON.parse(wasm().WasqCore.engineFacts());
    facts = {
      actions: new Set(f.actions),
      messageActions: new Set(f.messageActions),
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
