// For small browser demos: localStorage is synchronous, so the engine can stay synchronous,
// but it has a few MB of quota and no multi-key transaction. Atomicity comes from a journal:
// the whole batch is written under one key first (a single setItem is atomic), then applied,
// then the journal is removed. Opening replays a journal left by a tab that died mid-apply;
// replay is idempotent, so dying during replay is harmless too.

import { checkBatch, bytesToBase64, base64ToBytes } from "./batch.js";

export class LocalStorageStorage {
  #prefix;
  #storage;
  #dataPrefix;
  #journalKey;

  /**
   * @param {string} [prefix] namespace for every key this adapter writes
   * @param {Storage} [storage] a Web Storage object (defaults to window.localStorage)
   */
  constructor(prefix = "wasq:", storage = globalThis.localStorage) {
    if (!storage || typeof storage.getItem !== "function") {
      throw new TypeError("LocalStorageStorage needs a Web Storage object (globalThis.localStorage is missing)");
    }
    this.#prefix = prefix;
    this.#storage = storage;
    this.#dataPrefix = `${prefix}d:`;
    this.#journalKey = `${prefix}journal`;
    const pending = storage.getItem(this.#journalKey);
    if (pending !== null) {
      this.#apply(JSON.parse(pending));
      storage.removeItem(this.#journalKey);
    }
  }

  get durability() {
    return "full";
  }

  loadAll() {
    const out = [];
    const storage = this.#storage;
    for (let i = 0; i < storage.length; i++) {
      const name = storage.key(i);
      if (name !== null && name.startsWith(this.#dataPrefix)) {
        out.push([name.slice(this.#dataPrefix.length), base64ToBytes(storage.getItem(name))]);
      }
    }
    return out;
  }

  commit(batch) {
    const { put, del } = checkBatch(batch);
    const storage = this.#storage;
    const journal = { put: put.map(([key, value]) => [key, bytesToBase64(value)]), del };
    // Undo information, so a quota error half-way through the apply can be rolled back and the
    // caller's "this commit failed" stays true.
    const previous = new Map();
    for (const key of [...put.map(([key]) => key), ...del]) {
      if (!previous.has(key)) previous.set(key, storage.getItem(this.#dataPrefix + key));
    }
    // Throws QuotaExceededError before anything changed if the batch itself does not fit.
    storage.setItem(this.#journalKey, JSON.stringify(journal));
    try {
      this.#apply(journal);
    } catch (err) {
      for (const [key, old] of previous) {
        if (old === null) storage.removeItem(this.#dataPrefix + key);
        else storage.setItem(this.#dataPrefix + key, old);
      }
      storage.removeItem(this.#journalKey);
      throw err;
    }
    storage.removeItem(this.#journalKey);
  }

  #apply(journal) {
    for (const [key, value] of journal.put) this.#storage.setItem(this.#dataPrefix + key, value);
    for (const key of journal.del) this.#storage.removeItem(this.#dataPrefix + key);
  }

  /** Remove every record this adapter owns (its prefix), e.g. to reset a demo. */
  clear() {
    const doomed = [];
    for (let i = 0; i < this.#storage.length; i++) {
      const name = this.#storage.key(i);
      if (name !== null && name.startsWith(this.#prefix)) doomed.push(name);
    }
    for (const name of doomed) this.#storage.removeItem(name);
  }

  close() {}
}
