// The JS-facing engine: a compiled core plus the things only the host can do — read the clock,
// persist changes, fire timers and make long polls wait.
//
// Every call follows the same path (#run): read the clock once, call the core, commit the core's
// changes to storage before answering, publish events, wake long polls that can now proceed, and
// re-arm the single timer on the core's next deadline.

import { wasm } from "./bindings.js";
import { SystemClock } from "./clock.js";
import { MemoryStorage } from "./storage/memory.js";
import { Waiters } from "./waiters.js";

// Entry points for the HTTP handlers (same package, not public API): symbols keep them off the
// documented surface without a second class.
export const HTTP = Symbol("wasq.http");
export const CONTEXT = Symbol("wasq.context");
export const DISPATCH = Symbol("wasq.dispatch");
export const WAIT = Symbol("wasq.wait");
export const FLUSH = Symbol("wasq.flush");
export const NOW = Symbol("wasq.now");

/** Every SQS action; each also gets a camelCase method (`sendMessage(params)`). */
export const ACTIONS = [
  "AddPermission",
  "CancelMessageMoveTask",
  "ChangeMessageVisibility",
  "ChangeMessageVisibilityBatch",
  "CreateQueue",
  "DeleteMessage",
  "DeleteMessageBatch",
  "DeleteQueue",
  "GetQueueAttributes",
  "GetQueueUrl",
  "ListDeadLetterSourceQueues",
  "ListMessageMoveTasks",
  "ListQueueTags",
  "ListQueues",
  "PurgeQueue",
  "ReceiveMessage",
  "RemovePermission",
  "SendMessage",
  "SendMessageBatch",
  "SetQueueAttributes",
  "StartMessageMoveTask",
  "TagQueue",
  "UntagQueue",
];

/** setTimeout's delay is a signed 32-bit number of ms; longer waits are re-armed when they fire. */
const MAX_TIMER_DELAY = 2 ** 31 - 1;

function closedError() {
  const err = new Error("the engine is closed");
  err.name = "EngineClosedError";
  return err;
}

export class Engine {
  #core;
  #coreOptions;
  #clock;
  #storage;
  #timers;
  #unsubscribe = null;
  #timer = null;
  #timerAt = undefined;
  #waiters = new Waiters();
  #listeners = new Map();
  #closed = false;

  /**
   * @param {object} [options]
   * @param {{ now(): number }} [options.clock] default SystemClock
   * @param {object} [options.storage] default MemoryStorage; see the README's storage interface
   * @param {number|bigint} [options.seed] message ids and receipt handles derive from it; random when absent
   * @param {boolean} [options.timers] false: the host drives time itself (`tick()` from a Durable Object alarm)
   */
  constructor(options = {}) {
    const {
      clock = new SystemClock(),
      storage = new MemoryStorage(),
      timers = true,
      seed,
      region,
      accountId,
      defaultHost,
      standardInflightLimit,
      fifoInflightLimit,
    } = options ?? {};
    if (typeof clock?.now !== "function") throw new TypeError("options.clock must have a now() method");
    if (typeof storage?.loadAll !== "function" || typeof storage?.commit !== "function") {
      throw new TypeError("options.storage must have loadAll() and commit(batch) methods");
    }
    this.#clock = clock;
    this.#storage = storage;
    this.#timers = timers !== false;
    this.#coreOptions = { seed, region, accountId, defaultHost, standardInflightLimit, fifoInflightLimit };
    this.#core = new (wasm().WasqCore)(this.#coreOptions, Array.from(storage.loadAll()));
    // A rebuild after a failed commit must mint the same ids as the lost core would have.
    this.#coreOptions.seed = this.#core.seed;
    if (typeof clock.subscribe === "function") {
      // A subscribable clock (ManualClock) announces every change: no real timers are needed,
      // and stepping the clock applies everything due before advance() returns.
      this.#unsubscribe = clock.subscribe(() => {
        if (!this.#closed) this.tick();
      });
    }
    this.#arm();
  }

  /** Run one SQS action with its JSON parameters; returns the JSON result or throws an SQS Error. */
  dispatch(action, params = {}) {
    return this[DISPATCH](action, params, undefined);
  }

  /**
   * ReceiveMessage with long polling: waits up to WaitTimeSeconds (or the queue's
   * ReceiveMessageWaitTimeSeconds) on the engine's clock for a message to become receivable.
   * @param {object} params ReceiveMessage parameters
   * @param {{ signal?: AbortSignal }} [options]
   */
  async receiveMessage(params = {}, { signal } = {}) {
    signal?.throwIfAborted();
    const start = this[NOW]();
    let out = this.dispatch("ReceiveMessage", params);
    if (!out.Messages?.length) {
      let wait = params?.WaitTimeSeconds;
      if (wait === undefined || wait === null) {
        const attrs = this.dispatch("GetQueueAttributes", {
          QueueUrl: params.QueueUrl,
          AttributeNames: ["ReceiveMessageWaitTimeSeconds"],
        });
        wait = Number(attrs.Attributes?.ReceiveMessageWaitTimeSeconds ?? 0);
      }
      const deadline = start + wait * 1000;
      while (this[NOW]() < deadline) {
        await this[WAIT](params.QueueUrl, undefined, deadline, signal);
        out = this.dispatch("ReceiveMessage", params);
        if (out.Messages?.length) break;
      }
    }
    await this[FLUSH]();
    return out;
  }

  /** Every message of a queue and its state, without changing anything a client could see. */
  peek(queueUrl) {
    return this.#run((core, now) => JSON.parse(core.peek(now, queueUrl, undefined)));
  }

  /** Apply everything due now. Hosts with `timers: false` call this (e.g. from a Durable Object alarm). */
  tick() {
    this.#run((core, now) => core.tick(now));
  }

  /** When the engine next has time-driven work (epoch ms on its clock), or undefined. */
  nextDeadline() {
    this.#assertOpen();
    return this.#core.nextDeadline();
  }

  /** Subscribe to `"event"` (state transitions) or `"error"` (failures of timer-driven ticks). */
  on(name, listener) {
    if (typeof listener !== "function") throw new TypeError("listener must be a function");
    if (!this.#listeners.has(name)) this.#listeners.set(name, new Set());
    this.#listeners.get(name).add(listener);
    return this;
  }

  off(name, listener) {
    this.#listeners.get(name)?.delete(listener);
    return this;
  }

  /** Stop timers, fail pending long polls with EngineClosedError, release the core. */
  close() {
    if (this.#closed) return;
    this.#closed = true;
    this.#clearTimer();
    this.#unsubscribe?.();
    this.#waiters.rejectAll(closedError());
    this.#core.free();
    this.#storage.close?.();
  }

  /** The clock this engine reads (consumers schedule their own timers on it). */
  get clock() {
    return this.#clock;
  }

  get closed() {
    return this.#closed;
  }

  [NOW]() {
    return this.#clock.now();
  }

  [DISPATCH](action, params, context) {
    const json = JSON.stringify(params ?? {});
    return this.#run((core, now) => JSON.parse(core.dispatch(now, action, json, context)));
  }

  [HTTP](request, options) {
    return this.#run((core, now) => core.handleHttp(now, request, options));
  }

  /** What the protocol layer reads from a request's headers: `{ region, host, scheme, … }`. */
  [CONTEXT](request) {
    this.#assertOpen();
    return this.#core.requestContext(request);
  }

  /** Resolves when a later call or tick makes the queue receivable, or at `deadline`. */
  [WAIT](queueUrl, context, deadline, signal) {
    this.#assertOpen();
    const promise = this.#waiters.add(queueUrl, context, deadline, signal);
    this.#arm();
    return promise;
  }

  /** With `durability === "full"` storage, resolves once everything committed so far is durable. */
  async [FLUSH]() {
    if (this.#storage.durability === "full" && typeof this.#storage.flush === "function") {
      await this.#storage.flush();
    }
  }

  #assertOpen() {
    if (this.#closed) throw closedError();
  }

  #run(call) {
    this.#assertOpen();
    const now = this.#clock.now();
    let result;
    let failure = null;
    try {
      result = call(this.#core, now);
    } catch (err) {
      failure = { err };
    }
    // Due work applied by the call (or by the receivable checks) is persisted in the same commit.
    const ready = this.#waiters.ready(now, (url, ctx) => this.#core.receivable(now, url, ctx));
    try {
      this.#commit();
      this.#publishEvents();
    } finally {
      // Woken polls receive again on whichever core is current, so waking is right either way.
      for (const waiter of ready) waiter.wake();
      this.#arm();
    }
    if (failure) throw failure.err;
    return result;
  }

  #commit() {
    const changes = this.#core.takeChanges();
    if (changes.put.length === 0 && changes.del.length === 0) return;
    try {
      this.#storage.commit(changes);
    } catch (err) {
      // Nothing unacknowledged may stay visible: rebuild from what storage actually holds.
      this.#core.free();
      this.#core = new (wasm().WasqCore)(this.#coreOptions, Array.from(this.#storage.loadAll()));
      throw err;
    }
  }

  #publishEvents() {
    const json = this.#core.takeEvents();
    const listeners = this.#listeners.get("event");
    if (!listeners?.size || json === "[]") return;
    for (const event of JSON.parse(json)) {
      for (const listener of [...listeners]) listener(event);
    }
  }

  #clearTimer() {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#timerAt = undefined;
  }

  /** One timer for everything: the core's next deadline and the earliest long-poll end. */
  #arm() {
    if (this.#closed) return;
    if (this.#unsubscribe !== null) return; // the clock calls us when time moves
    const core = this.#timers ? this.#core.nextDeadline() : undefined;
    const poll = this.#waiters.earliestDeadline();
    const at = core === undefined ? poll : poll === undefined ? core : Math.min(core, poll);
    if (at === this.#timerAt) return;
    this.#clearTimer();
    if (at === undefined) return;
    const delay = Math.min(Math.max(0, at - this.#clock.now()), MAX_TIMER_DELAY);
    this.#timerAt = at;
    this.#timer = setTimeout(() => this.#fire(), delay);
    // Internal deadlines alone must not keep a Node process alive; a pending long poll must.
    if (poll === undefined) this.#timer.unref?.();
  }

  #fire() {
    this.#timer = null;
    this.#timerAt = undefined;
    if (this.#closed) return;
    try {
      this.tick();
    } catch (err) {
      const listeners = this.#listeners.get("error");
      if (!listeners?.size) throw err;
      for (const listener of [...listeners]) listener(err);
    }
  }
}

function camel(action) {
  return action[0].toLowerCase() + action.slice(1);
}

for (const action of ACTIONS) {
  if (action === "ReceiveMessage") continue; // async, long-polling, defined above
  Object.defineProperty(Engine.prototype, camel(action), {
    value: function (params = {}) {
      return this.dispatch(action, params);
    },
    writable: true,
    configurable: true,
  });
}
