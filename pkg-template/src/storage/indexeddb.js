// Browser storage on IndexedDB. IndexedDB is asynchronous and the engine is not, so the adapter
// keeps every record in memory (loaded once by open()) and writes batches behind, in order.
// Batches waiting when a write starts go into one IDB transaction: a transaction is atomic and
// applies its requests in order, so after a crash the database holds some prefix of the batches,
// each whole. flush() resolves once everything committed before it is durable; with
// durability "full" the Engine awaits it before answering, so an answered call is on disk.

import { checkBatch } from "./batch.js";

const STORE = "records";

export class IndexedDbStorage {
  #db;
  #durability;
  #mirror;
  #pending = [];
  #writing = null;
  #error = null;
  #closed = false;

  /**
   * Open (creating if needed) the database `name` and read every record into memory.
   * @param {string} name IndexedDB database name
   * @param {{ durability?: "relaxed" | "full", indexedDB?: IDBFactory }} [options]
   *   durability: "full" (default) makes the Engine wait for each write; "relaxed" answers at
   *   once and a crash can lose the last moments (SQS's at-least-once semantics still hold for
   *   in-flight messages, which at worst become visible again early).
   * @returns {Promise<IndexedDbStorage>}
   */
  static async open(name, { durability = "full", indexedDB = globalThis.indexedDB } = {}) {
    if (durability !== "full" && durability !== "relaxed") {
      throw new TypeError(`IndexedDbStorage: durability must be "full" or "relaxed", got ${String(durability)}`);
    }
    if (!indexedDB) throw new TypeError("IndexedDbStorage needs IndexedDB (globalThis.indexedDB is missing)");
    const db = await request(
      (() => {
        const req = indexedDB.open(name, 1);
        req.onupgradeneeded = () => {
          if (!req.result.objectStoreNames.contains(STORE)) req.result.createObjectStore(STORE);
        };
        return req;
      })(),
    );
    const tx = db.transaction(STORE, "readonly");
    const store = tx.objectStore(STORE);
    const [keys, values] = await Promise.all([request(store.getAllKeys()), request(store.getAll())]);
    const mirror = new Map();
    keys.forEach((key, i) => mirror.set(key, toBytes(values[i])));
    return new IndexedDbStorage(db, durability, mirror);
  }

  /** Delete a database (e.g. to reset a demo). Close every adapter on it first. */
  static async destroy(name, { indexedDB = globalThis.indexedDB } = {}) {
    await request(indexedDB.deleteDatabase(name));
  }

  /** @private use IndexedDbStorage.open */
  constructor(db, durability, mirror) {
    this.#db = db;
    this.#durability = durability;
    this.#mirror = mirror;
  }

  get durability() {
    return this.#durability;
  }

  loadAll() {
    return Array.from(this.#mirror, ([key, value]) => [key, Uint8Array.from(value)]);
  }

  commit(batch) {
    if (this.#closed) throw new Error("IndexedDbStorage is closed");
    // A lost write means later batches would land on a database missing earlier ones; refuse
    // to go on rather than persist an inconsistent state.
    if (this.#error) throw this.#error;
    const { put, del } = checkBatch(batch);
    if (put.length === 0 && del.length === 0) return;
    const copy = { put: put.map(([key, value]) => [key, Uint8Array.from(value)]), del: [...del] };
    for (const [key, value] of copy.put) this.#mirror.set(key, value);
    for (const key of copy.del) this.#mirror.delete(key);
    this.#pending.push(copy);
    if (!this.#writing) this.#writing = this.#drain();
  }

  /** Resolves when every batch committed so far is durable; rejects with a write error, if any. */
  async flush() {
    while (this.#writing) await this.#writing;
    if (this.#error) throw this.#error;
  }

  /** Waits for pending writes, then closes the database. */
  async close() {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.flush();
    } finally {
      this.#db.close();
    }
  }

  async #drain() {
    try {
      while (this.#pending.length > 0 && !this.#error) {
        const batches = this.#pending;
        this.#pending = [];
        try {
          await this.#write(batches);
        } catch (err) {
          this.#error = err instanceof Error ? err : new Error(`IndexedDB write failed: ${String(err)}`);
        }
      }
    } finally {
      this.#writing = null;
    }
  }

  #write(batches) {
    return new Promise((resolve, reject) => {
      // "strict" asks the browser to reach the disk before completing; "relaxed" only the OS.
      const tx = this.#db.transaction(STORE, "readwrite", {
        durability: this.#durability === "full" ? "strict" : "relaxed",
      });
      const store = tx.objectStore(STORE);
      for (const { put, del } of batches) {
        for (const [key, value] of put) store.put(value, key);
        for (const key of del) store.delete(key);
      }
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error ?? new Error("IndexedDB transaction failed"));
      tx.onabort = () => reject(tx.error ?? new Error("IndexedDB transaction aborted"));
    });
  }
}

function request(req) {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function toBytes(value) {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  throw new Error("IndexedDbStorage: the database holds a record that is not bytes (written by something else?)");
}
