// Cloudflare Durable Object storage (SQLite-backed objects). Its KV API is synchronous and
// transactionSync makes a batch atomic; the output gate holds the object's response until the
// write is durable, so commits are fully durable with nothing to await.

import { checkBatch } from "./batch.js";

export class DurableObjectStorage {
  #storage;
  #prefix;

  /**
   * @param {DurableObjectStorage} storage `ctx.storage` of a Durable Object class declared with
   *   SQLite storage (`new_sqlite_classes` in wrangler config, `useSQLite: true` in miniflare)
   * @param {{ prefix?: string }} [options] key namespace, so the object can keep its own keys too
   */
  constructor(storage, { prefix = "wasq:" } = {}) {
    if (!storage || typeof storage.transactionSync !== "function" || !storage.kv) {
      throw new TypeError(
        "DurableObjectStorage needs ctx.storage of a SQLite-backed Durable Object (synchronous kv and transactionSync)",
      );
    }
    this.#storage = storage;
    this.#prefix = prefix;
  }

  get durability() {
    return "full";
  }

  loadAll() {
    const out = [];
    const skip = this.#prefix.length;
    for (const [key, value] of this.#storage.kv.list({ prefix: this.#prefix })) {
      out.push([key.slice(skip), toBytes(value, key)]);
    }
    return out;
  }

  commit(batch) {
    const { put, del } = checkBatch(batch);
    if (put.length === 0 && del.length === 0) return;
    const kv = this.#storage.kv;
    this.#storage.transactionSync(() => {
      for (const [key, value] of put) kv.put(this.#prefix + key, value);
      for (const key of del) kv.delete(this.#prefix + key);
    });
  }

  close() {}
}

function toBytes(value, key) {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  throw new Error(`DurableObjectStorage: key ${key} does not hold bytes (written by something else?)`);
}
