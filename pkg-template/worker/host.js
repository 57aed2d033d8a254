// What every wasq Durable Object shares: one Engine over the object's SQLite storage, its seed
// kept in that storage (receipt handles and ids minted before a restart must still verify after
// it), the object's single alarm following the engine's next deadline, and the internal
// endpoints the Worker calls.
//
// Durability: DurableObjectStorage writes inside transactionSync, synchronously, before the
// engine returns; the output gate holds the response until that write is durable. Nothing here
// awaits between a state change and its write.
//
// Internal errors: an engine whose wasm panicked or trapped (src/internal-error.js) refuses every
// later call, and the object would answer 500 to everything until workerd evicted it. The object
// answers the request that failed with InternalFailure, forgets that engine, and builds a new one
// over the same storage on the next request: storage holds everything acknowledged, and nothing
// of the failed call (which was never acknowledged).

import { Engine, DurableObjectStorage } from "../entry/workerd.js";
import { DISPATCH, WAIT, FLUSH, NOW, PARSED, INTERNAL } from "../src/engine.js";
import { headerPairs } from "../src/http-head.js";
import { internalFailure } from "./wire.js";

const SEED_KEY = "wasq-edge:seed";
const decoder = new TextDecoder();

/** Settings every engine of one deployment must share (account, default region). */
export function engineSettings(env) {
  return {
    accountId: env?.WASQ_ACCOUNT_ID || undefined,
    region: env?.WASQ_REGION || undefined,
  };
}

export class EngineHost {
  #engine = null;
  #alarmAt = undefined; // undefined: not read yet; null: none set

  constructor(ctx, env) {
    this.ctx = ctx;
    this.env = env;
  }

  /** Created on first use, never at construction: drawing a seed needs a request context. */
  get engine() {
    if (this.#engine === null) {
      const kv = this.ctx.storage.kv;
      let seed = kv.get(SEED_KEY);
      if (typeof seed !== "string") {
        const words = crypto.getRandomValues(new Uint32Array(2));
        // 53 bits: a JS number holds it exactly.
        seed = String((words[0] & 0x1fffff) * 2 ** 32 + words[1]);
        kv.put(SEED_KEY, seed);
      }
      this.#engine = new Engine({
        ...engineSettings(this.env),
        seed: Number(seed),
        storage: new DurableObjectStorage(this.ctx.storage),
        timers: false,
      });
    }
    return this.#engine;
  }

  /**
   * One SQS request as the Worker admitted it (`{protocol, action, params, context}`, see
   * `admitHttp`), run without the protocol layer's reading or signature check: the Worker did
   * both. That is safe because a Durable Object has no address of its own: only code holding the
   * namespace binding (this deployment's Worker and objects) can reach it, never a client. The
   * request may be a rewritten part of the client's (a sub-batch, a handle without its prefix),
   * which no longer carries a valid signature anyway.
   *
   * A ReceiveMessage that finds nothing long-polls here as `serve()` does for HTTP requests:
   * wait until the queue is receivable or the wait ends, then receive again.
   */
  async parsed(parsed, signal) {
    let engine;
    try {
      engine = this.engine;
      const start = engine[NOW]();
      let res = engine[PARSED](parsed);
      if (parsed.action === "ReceiveMessage" && res.status === 200 && !delivered(res, parsed.protocol)) {
        const params = JSON.parse(parsed.params);
        let wait = params.WaitTimeSeconds;
        if (wait === undefined || wait === null) {
          try {
            const attrs = engine[DISPATCH](
              "GetQueueAttributes",
              { QueueUrl: params.QueueUrl, AttributeNames: ["ReceiveMessageWaitTimeSeconds"] },
              parsed.context,
            );
            wait = attrs.Attributes?.ReceiveMessageWaitTimeSeconds;
          } catch {
            wait = 0;
          }
        }
        wait = Number(wait);
        const deadline = start + (Number.isFinite(wait) ? wait : 0) * 1000;
        while (engine[NOW]() < deadline && !signal?.aborted) {
          await engine[WAIT](params.QueueUrl, parsed.context, deadline, signal);
          res = engine[PARSED](parsed);
          if (res.status !== 200 || delivered(res, parsed.protocol)) break;
        }
      }
      await engine[FLUSH]();
      await this.afterRequest(parsed.action);
      // The Worker's form of an answer: headers as pairs, which it splices (wire.js).
      return { status: res.status, headers: headerPairs(res.head), body: res.body };
    } catch (err) {
      if (!this.#stopped(engine, err)) throw err;
      return internalFailure(parsed.protocol === "json", err.message);
    } finally {
      await this.syncAlarm();
    }
  }

  /**
   * Whether `err` is an internal error (a panic or trap in the wasm). If `engine` is the one in
   * use, it is forgotten, so that the next use builds a new engine over the same storage; an
   * engine built meanwhile by another request (this one waited on the old one) is kept.
   */
  #stopped(engine, err) {
    if (err?.name !== "WasqInternalError") return false;
    if (engine !== undefined && engine === this.#engine) {
      console.error(`wasq edge: internal error, the engine stopped; the next request builds a new one from storage: ${err.stack ?? err}`);
      this.#engine = null;
      engine.close();
    }
    return true;
  }

  /** `use(engine)`; an internal error forgets the engine (see #stopped) and is thrown on. */
  #using(use) {
    let engine;
    try {
      engine = this.engine;
      return use(engine);
    } catch (err) {
      this.#stopped(engine, err);
      throw err;
    }
  }

  /** Work of a subclass's own after a request was answered by the engine (dead-letter transfers). */
  async afterRequest(action) {}

  /** JSON actions with a caller context; each result is `{ ok }` or `{ error: { name, code, message } }`. */
  async call(calls, context) {
    try {
      const out = calls.map(({ action, params }) => {
        try {
          return { ok: this.#using((engine) => engine[DISPATCH](action, params, context)) };
        } catch (err) {
          // An internal error carries a code too (InternalFailure), but is no answer of the engine's.
          if (err?.code === undefined || err.name === "WasqInternalError") throw err;
          return { error: { name: err.name, code: err.code, message: err.message } };
        }
      });
      if (calls.some((c) => c.action === "ReceiveMessage")) await this.afterRequest("ReceiveMessage");
      return out;
    } finally {
      await this.syncAlarm();
    }
  }

  /**
   * Resolves `true` when the queue may have something to receive, `false` at `deadline` (epoch
   * ms). With `immediate`, visible messages already there count (the Worker's sweep may have
   * passed this object before they arrived); without it, only a later change does (a sweep just
   * found the visible ones locked in their FIFO groups, so they must not wake it again).
   */
  async waitReceivable(queueUrl, context, deadline, immediate, signal) {
    const engine = this.engine;
    if (immediate) {
      try {
        const attrs = engine[DISPATCH](
          "GetQueueAttributes",
          { QueueUrl: queueUrl, AttributeNames: ["ApproximateNumberOfMessages"] },
          context,
        );
        if (Number(attrs.Attributes?.ApproximateNumberOfMessages ?? 0) > 0) return true;
      } catch {
        return true; // the queue went away: the caller's next receive reports it
      }
    }
    if (Date.now() >= deadline) return false;
    try {
      await engine[WAIT](queueUrl, context, deadline, signal);
    } catch {
      return false;
    } finally {
      await this.syncAlarm();
    }
    return Date.now() < deadline;
  }

  /**
   * One internal operation of the engine (ExportMessages, ImportMessages, RemoveMessages: moving
   * messages between objects with their identity; not SQS actions, no client can name them).
   * Throws the engine's error.
   */
  internalOp(op, params, context) {
    return this.#using((engine) => engine[INTERNAL](op, params, context));
  }

  /** Keep the object's one alarm on the engine's next deadline. */
  async syncAlarm() {
    if (this.#engine === null) return;
    if (this.#alarmAt === undefined) this.#alarmAt = (await this.ctx.storage.getAlarm()) ?? null;
    const engine = this.#engine;
    if (engine === null) return;
    let own;
    try {
      own = engine.nextDeadline();
    } catch (err) {
      // An engine that stopped in a call whose error was handled elsewhere (a dead-letter
      // transfer's is only logged) is forgotten here; the next use builds one from storage.
      if (this.#stopped(engine, err)) return;
      throw err;
    }
    const extra = this.extraDeadline();
    const next = own === undefined ? extra : extra === undefined ? own : Math.min(own, extra);
    const want = next === undefined ? null : Math.max(next, Date.now() + 1);
    if (want === this.#alarmAt) return;
    // An earlier alarm still pending is enough: alarm() re-arms on the real deadline.
    if (want !== null && this.#alarmAt !== null && this.#alarmAt <= want && this.#alarmAt > Date.now()) return;
    this.#alarmAt = want;
    if (want === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(want);
  }

  /** Time-driven work of a subclass's own (the directory's move tasks), epoch ms or undefined. */
  extraDeadline() {
    return undefined;
  }

  async alarm() {
    this.#alarmAt = null; // a fired alarm is gone
    this.#using((engine) => engine.tick());
    await this.syncAlarm();
  }

  /** Internal endpoints: POST /parsed (an admitted SQS request), /call (JSON actions), /wait. */
  async fetch(request) {
    const url = new URL(request.url);
    const input = JSON.parse(decoder.decode(await request.arrayBuffer()) || "{}");
    if (url.pathname === "/parsed") return encodeHttp(await this.parsed(input, request.signal));
    const out = await this.internal(url.pathname, input, request);
    return Response.json(out ?? null);
  }

  async internal(path, input, request) {
    if (path === "/call") return { results: await this.call(input.calls, input.context) };
    if (path === "/wait") {
      const { queueUrl, context, deadline, immediate } = input;
      return { ready: await this.waitReceivable(queueUrl, context, deadline, immediate, request.signal) };
    }
    if (path === "/metrics") return this.#using((engine) => engine.metrics());
    throw new Error(`wasq edge object: unknown endpoint ${path}`);
  }
}

/** Whether a ReceiveMessage answer holds messages (the engine's own output, either protocol). */
function delivered(res, protocol) {
  return decoder.decode(res.body).includes(protocol === "json" ? '"Messages":' : "<Message>");
}

/** An engine response carried back to the Worker: status, headers (JSON) and body. */
/**
 * What RemoveMessages takes for a message ExportMessages gave: its id and its sequence in the
 * exporting engine, which the engine goes to directly (the removal costs O(batch), not O(queue)).
 */
export function removal({ MessageId, Sequence }) {
  return { MessageId, Sequence };
}

export function encodeHttp(res) {
  return new Response(res.body, {
    status: 200,
    headers: { "x-wasq-status": String(res.status), "x-wasq-headers": JSON.stringify(res.headers) },
  });
}

export async function decodeHttp(response) {
  const status = Number(response.headers.get("x-wasq-status"));
  if (!Number.isInteger(status)) throw new Error(`wasq edge object failed: ${response.status} ${await response.text()}`);
  return {
    status,
    headers: JSON.parse(response.headers.get("x-wasq-headers")),
    body: new Uint8Array(await response.arrayBuffer()),
  };
}
