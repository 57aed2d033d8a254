// Fixture Worker for durable-object.test.js: a Durable Object that exposes its
// DurableObjectStorage adapter over fetch (JSON in, JSON out; values as arrays of bytes). It
// imports what a Worker's `import ... from "wasq"` resolves to (the workerd entry).
import { DurableObjectStorage } from "../../../pkg/entry/workerd.js";

export class Store {
  constructor(ctx) {
    this.ctx = ctx;
    // The real storage, except that a put of a key ending in "boom" throws: a write failing
    // part-way through a batch, which transactionSync must roll back.
    const kv = ctx.storage.kv;
    const faulty = {
      transactionSync: (fn) => ctx.storage.transactionSync(fn),
      kv: {
        get: (k) => kv.get(k),
        list: (opts) => kv.list(opts),
        delete: (k) => kv.delete(k),
        put: (k, v) => {
          if (k.endsWith("boom")) throw new Error("injected write failure");
          return kv.put(k, v);
        },
      },
    };
    this.adapter = new DurableObjectStorage(faulty, { prefix: "wasq:" });
  }

  async fetch(request) {
    const url = new URL(request.url);
    try {
      if (url.pathname === "/commit") {
        const batch = await request.json();
        this.adapter.commit({
          put: batch.put.map(([k, v]) => [k, Uint8Array.from(v)]),
          del: batch.del,
        });
        return Response.json({ ok: true });
      }
      if (url.pathname === "/load") {
        const out = {};
        for (const [k, v] of this.adapter.loadAll()) out[k] = [...v];
        return Response.json(out);
      }
      if (url.pathname === "/foreign") {
        // A key outside the adapter's prefix, which loadAll must not return.
        this.ctx.storage.kv.put("mine", 1);
        return Response.json({ ok: true, durability: this.adapter.durability });
      }
      return new Response("not found", { status: 404 });
    } catch (err) {
      return Response.json({ ok: false, name: err.name, message: String(err.message) }, { status: 500 });
    }
  }
}

export default {
  fetch(request, env) {
    return env.STORE.get(env.STORE.idFromName("one")).fetch(request);
  },
};
