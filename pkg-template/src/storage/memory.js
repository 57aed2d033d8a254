// The default adapter: nothing survives the process, which is what tests and playgrounds want.

import {
  checkBatch,
  COMMIT_PACKED,
  LOAD_PACKED,
  PACKED_LOADS,
  concatEntries,
  entryValue,
  forEachPacked,
  packRecords,
} from "./batch.js";

export class MemoryStorage {
  // Each record is held in the records layout of batch.js (key and value in one buffer), so
  // that an Engine recovers from one copy of every record, without encoding a key again.
  #records = new Map();

  /** @param {Iterable<[string, Uint8Array]>} [initial] records to start with (e.g. a copy of another adapter) */
  constructor(initial) {
    if (initial) for (const [key, value] of initial) this.#records.set(key, packRecords([[key, Uint8Array.from(value)]]));
  }

  get durability() {
    return "full";
  }

  loadAll() {
    // Copies, so a caller that keeps and mutates a buffer cannot change what is stored.
    return Array.from(this.#records, ([key, entry]) => [key, entryValue(entry).slice()]);
  }

  commit(batch) {
    const { put, del } = checkBatch(batch);
    // Validation above is the only thing that can throw, so the batch applies whole or not at all.
    const entries = put.map((entry) => packRecords([entry])); // a copy
    put.forEach(([key], i) => this.#records.set(key, entries[i]));
    for (const key of del) this.#records.delete(key);
  }

  /**
   * The Engine's batch, as the buffer it came out of the wasm in. Nobody else holds that buffer,
   * so the records are kept as views of it instead of copies; a view keeps its whole batch
   * buffer alive, which costs at most one batch's worth of bytes per surviving record.
   */
  // The Engine calls these two only while commit() and loadAll() are this class's own (not a
  // subclass's or an instance's replacement), which must then see every batch and load.
  [COMMIT_PACKED](bytes) {
    const records = this.#records;
    forEachPacked(
      bytes,
      (key, value, entry) => records.set(key, entry),
      (key) => records.delete(key),
    );
  }

  [LOAD_PACKED](into) {
    return concatEntries(this.#records, into);
  }

  /** Number of records held (handy in tests and for size displays). */
  get size() {
    return this.#records.size;
  }

  close() {}
}

PACKED_LOADS.add(MemoryStorage.prototype.loadAll);
