// The default adapter: nothing survives the process, which is what tests and playgrounds want.

import { checkBatch } from "./batch.js";

export class MemoryStorage {
  #records = new Map();

  /** @param {Iterable<[string, Uint8Array]>} [initial] records to start with (e.g. a copy of another adapter) */
  constructor(initial) {
    if (initial) for (const [key, value] of initial) this.#records.set(key, Uint8Array.from(value));
  }

  get durability() {
    return "full";
  }

  loadAll() {
    // Copies, so a caller that keeps and mutates a buffer cannot change what is stored.
    return Array.from(this.#records, ([key, value]) => [key, Uint8Array.from(value)]);
  }

  commit(batch) {
    const { put, del } = checkBatch(batch);
    // Validation above is the only thing that can throw, so the batch applies whole or not at all.
    for (const [key, value] of put) this.#records.set(key, Uint8Array.from(value));
    for (const key of del) this.#records.delete(key);
  }

  /** Number of records held (handy in tests and for size displays). */
  get size() {
    return this.#records.size;
  }

  close() {}
}
