// The JS-facing engine: a compiled core plus the things only the host can do — read the clock,
// persist changes, fire timers and make long polls wait.
//
// Every call follows the same path (#run): read the clock once, call the core, commit the core's
// changes to storage before answering, publish events, wake long polls that can now proceed, and
// re-arm the single timer on the core's next deadline.

import { restartWasm, wasm, wasmGeneration } from "./bindings.js";
import { internalError, refusal, stoppedWasm } from "./internal-error.js";
import { SystemClock } from "./clock.js";
import { MemoryStorage } from "./storage/memory.js";
import { COMMIT_PACKED, LOAD_PACKED, PACKED_LOADS, packRecords, unpackBatch } from "./storage/batch.js";
import { Waiters } from "./waiters.js";
import { dispatchText } from "./io.js";
import { engineFacts } from "./facts.js";
import { paramsJson, settingJson, stringArg } from "./args.js";

// Entry points for the HTTP handlers (same package, not public API): symbols keep them off the
// documented surface without a second class.
export const HTTP = Symbol("wasq.http");
export const PARSED = Symbol("wasq.parsed");
export const CONTEXT = Symbol("wasq.context");
export const DISPATCH = Symbol("wasq.dispatch");
export const WAIT = Symbol("wasq.wait");
export const FLUSH = Symbol("wasq.flush");
export const NOW = Symbol("wasq.now");
export const INTERNAL = Symbol("wasq.internal");
// A ReceiveMessage reached the engine, whether it waits or is answered at once (see whenPolling).
export const RECEIVED = Symbol("wasq.received");
export const ADMIT = Symbol("wasq.admit");

/** setTimeout's delay is a signed 32-bit number of ms; longer waits are re-armed when they fire. */
const MAX_TIMER_DELAY = 2 ** 31 - 1;

const U64 = (1n << 64n) - 1n;
const MEMORY = MemoryStorage.prototype;

/** The internal error that last restarted the wasm instance (see #stop). */
let lastInternalError = null;

// Seeds for engines given none, drawn from the platform's CSPRNG 64 at a time: the core drawing
// its own cost a call out of the wasm into the crypto binding for every engine, and a test suite
// makes one per test. Drawn at the first engine, never at module load, which workerd forbids.
const seeds = new BigUint64Array(64);
let seedsLeft = 0;
function randomSeed() {
  if (seedsLeft === 0) {
    crypto.getRandomValues(seeds);
    seedsLeft = seeds.length;
  }
  return seeds[--seedsLeft];
}

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
  // The setTimeout/clearTimeout the timer was armed with (see #arm: fake timers swap them).
  #timerSet = null;
  #timerClear = null;
  // Whether the timer holds this engine only weakly (see #arm).
  #timerWeak = false;
  #waiters = new Waiters();
  #pollWatchers = new Set(); // whenPolling() promises not yet resolved: { name, resolve, reject }
  #listeners = new Map();
  // Whether the core collects events: only while someone listens, so that calls nobody watches
  // skip formatting events.
  #eventFeed = false;
  #closed = false;
  // The internal error this engine stopped with (see #stop), or null.
  #stopped = null;
  // The wasm instance #core was made on (src/bindings.js).
  #generation = 0;
  // Realism settings live in the core, which forgets them when it is rebuilt; kept here to re-apply.
  #realism = null;
  #queueRealism = new Map();
  #latencyState = 0n;
  #delays = [];
  #delayTimer = null;

  /**
   * @param {object} [options]
   * @param {{ now(): number }} [options.clock] default SystemClock
   * @param {object|null} [options.storage] an adapter (see the README's storage interface), or null:
   *   no storage at all — nothing is kept across a restart, and the core skips encoding changes.
   *   Omitted: in memory, private to this engine, which is null's behaviour (see below)
   * @param {number|bigint} [options.seed] message ids and receipt handles derive from it; random when absent
   * @param {boolean} [options.timers] false: the host drives time itself (`tick()` from a Durable Object alarm)
   * @param {"aws"|object|null} [options.realism] the failures real SQS produces, seeded; see setRealism
   */
  constructor(options = {}) {
    const {
      clock = new SystemClock(),
      // The default is an in-memory store private to this engine. A MemoryStorage made here could
      // never be read: nothing outside holds it, and the engine reads its storage back only to
      // rebuild after a failed commit, which a MemoryStorage never has. Encoding every change into
      // it would be a large share of every call for nothing, so the default is no storage, which
      // behaves the same. Whoever wants the records (a second engine over them, a test) passes a
      // MemoryStorage.
      storage = null,
      timers = true,
      seed,
      region,
      accountId,
      defaultHost,
      standardInflightLimit,
      fifoInflightLimit,
      maxStoredBytes,
      realism,
    } = options ?? {};
    if (typeof clock?.now !== "function") throw new TypeError("options.clock must have a now() method");
    // Both go verbatim into every queue URL: `defaultHost: "http://sqs.local"` (the SDK's
    // endpoint, pasted) made "http://http://sqs.local/…", and an account id that is not digits
    // makes URLs that path-addressed Query requests cannot name.
    if (defaultHost !== undefined && (typeof defaultHost !== "string" || !/^(\[[0-9A-Fa-f:.]+\]|[^\s/:@?#[\]]+)(:\d{1,5})?$/.test(defaultHost))) {
      throw new TypeError(`options.defaultHost must be host[:port], got ${JSON.stringify(defaultHost)}`);
    }
    if (accountId !== undefined && (typeof accountId !== "string" || !/^\d+$/.test(accountId))) {
      throw new TypeError(`options.accountId must be digits, got ${JSON.stringify(accountId)}`);
    }
    if (storage !== null && (typeof storage?.loadAll !== "function" || typeof storage?.commit !== "function")) {
      throw new TypeError("options.storage must have loadAll() and commit(batch) methods");
    }
    this.#clock = clock;
    this.#storage = storage;
    this.#timers = timers !== false;
    const persist = storage !== null;
    if (!actionMethods) installActionMethods();
    this.#coreOptions = { seed: seed === undefined || seed === null ? randomSeed() : seed, region, accountId, defaultHost, standardInflightLimit, fifoInflightLimit, maxStoredBytes, persist };
    try {
      this.#core = this.#newCore();
    } catch (err) {
      if (!stoppedWasm(err)) throw err;
      restartWasm(err);
      throw internalError(err);
    }
    // A rebuild after a failed commit must mint the same ids as the lost core would have.
    const coreSeed = this.#core.seed;
    this.#coreOptions.seed = coreSeed;
    // Latency draws get their own stream of the seed, so turning latency on changes no id.
    this.#latencyState = (BigInt(coreSeed) ^ 0x6c6174656e6379n) & U64;
    try {
      // The settings in force as the core answers them (JSON text), or null when realism is off.
      this.#realism = JSON.parse(this.#core.setRealism(undefined, settingJson(realism), undefined, true) ?? "null");
    } catch (err) {
      this.#core.free();
      throw err;
    }
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
    let out;
    this[RECEIVED](params?.QueueUrl);
    try {
      out = this.dispatch("ReceiveMessage", params);
    } catch (err) {
      await this.#latency(); // a refusal travels back over the same network
      throw err;
    }
    if (!out.Messages?.length) {
      let wait = params?.WaitTimeSeconds;
      if (wait === undefined || wait === null) {
        const attrs = this.dispatch("GetQueueAttributes", {
          QueueUrl: params.QueueUrl,
          AttributeNames: ["ReceiveMessageWaitTimeSeconds"],
        });
        wait = attrs.Attributes?.ReceiveMessageWaitTimeSeconds ?? 0;
      }
      wait = Number(wait); // a BigInt (10n) was accepted above as the integer it holds
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

  /**
   * Realism mode: the failures real SQS produces and emulators hide, drawn from the seed.
   * `"aws"` is what SQS does by default; an object pins knobs (`duplicateDelivery`, `reorder`,
   * `shortPollSampling`, `throttling`, `latency`); null turns it off. With a queue (URL or name)
   * the setting replaces the engine's for that queue only (null drops the override); latency is
   * the network's, so it is set for the whole engine only.
   * @param {string|undefined} queue
   * @param {"aws"|object|null} realism
   * @param {{ region?: string }} [options] the queue's region, when it is not the engine's
   */
  setRealism(queue, realism, { region } = {}) {
    this.#assertOpen();
    // The core reads and checks the setting, and answers what is then in force (JSON text).
    const setting = settingJson(realism);
    if (queue === undefined || queue === null) {
      this.#realism = JSON.parse(this.#with((core) => core.setRealism(undefined, setting, undefined)) ?? "null");
      return this;
    }
    if (typeof queue !== "string" || queue === "") throw new TypeError("setRealism: queue must be a queue URL or name");
    const name = queueName(queue);
    if (region != null) stringArg(region, "setRealism: options.region");
    const resolved = this.#with((core) => core.setRealism(name, setting, region));
    const key = JSON.stringify([region ?? null, name]);
    if (resolved) this.#queueRealism.set(key, { name, region, resolved });
    else this.#queueRealism.delete(key);
    return this;
  }

  /** The realism settings in force for a queue (URL or name): its own, else the engine's. */
  realismFor(queue, { region } = {}) {
    this.#assertOpen();
    if (region != null) stringArg(region, "realismFor: options.region");
    const settings = JSON.parse(this.#with((core) => core.realismFor(queueName(String(queue)), region)));
    // Latency is applied here, for the whole engine, whatever the queue.
    return { ...settings, latency: this.#realism?.latency ?? null };
  }

  /** Every message of a queue and its state, without changing anything a client could see. */
  peek(queueUrl) {
    stringArg(queueUrl, "peek: queueUrl");
    return this.#run((core, now) => JSON.parse(core.peek(now, queueUrl, undefined)));
  }

  /**
   * Every queue's numbers, for dashboards and `GET /metrics`: `{ queues: [{ queue, region, fifo,
   * visible, inflight, delayed, oldestMessageAgeSeconds, sent, received, deleted,
   * movedToDeadLetterQueue, throttled }] }`, queues in name order. The counts are the ones
   * GetQueueAttributes answers at the same moment; the counters (messages sent, received,
   * deleted, moved to the dead-letter queue, calls throttled) start at zero with the engine.
   */
  metrics() {
    const rows = this.#run((core, now) => JSON.parse(dispatchText(core, now, "Metrics", "{}", undefined, true)));
    const queues = rows.map(([queue, region, fifo, visible, inflight, delayed, ageMs, sent, received, deleted, movedToDeadLetterQueue, throttled]) => ({
      queue,
      region,
      fifo: fifo === 1,
      visible,
      inflight,
      delayed,
      oldestMessageAgeSeconds: ageMs / 1000,
      sent,
      received,
      deleted,
      movedToDeadLetterQueue,
      throttled,
    }));
    return { queues };
  }

  /** Apply everything due now. Hosts with `timers: false` call this (e.g. from a Durable Object alarm). */
  tick() {
    this.#run((core, now) => core.tick(now));
  }

  /** When the engine next has time-driven work (epoch ms on its clock), or undefined. */
  nextDeadline() {
    this.#assertOpen();
    return this.#with((core) => core.nextDeadline());
  }

  /**
   * Subscribe to `"event"` (state transitions) or `"error"` (failures of timer-driven ticks).
   * Events are collected only while an `"event"` listener is subscribed: a listener sees the
   * transitions of the calls made after it was added.
   */
  on(name, listener) {
    // A misspelt name ("events", "message") would otherwise subscribe to nothing, silently.
    if (name !== "event" && name !== "error") throw new TypeError(`unknown event ${JSON.stringify(name)}`);
    if (typeof listener !== "function") throw new TypeError("listener must be a function");
    if (!this.#listeners.has(name)) this.#listeners.set(name, new Set());
    this.#listeners.get(name).add(listener);
    this.#followListeners();
    return this;
  }

  off(name, listener) {
    this.#listeners.get(name)?.delete(listener);
    this.#followListeners();
    return this;
  }

  /**
   * Stop timers, fail pending long polls with EngineClosedError, release the core and the
   * storage. An engine that stopped on an internal error leaves its storage open: it belongs to
   * the engine made to replace this one.
   */
  close() {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#stopped !== null) return; // #stop did the rest
    this.#clearTimer();
    this.#unsubscribe?.();
    // An error only for someone to receive it: one with its stack trace is most of a close().
    if (this.#waiters.size > 0) this.#waiters.rejectAll(closedError());
    for (const watcher of [...this.#pollWatchers]) watcher.reject(closedError());
    this.#pollWatchers.clear();
    // Answers already computed still arrive; only their simulated network delay is cut short.
    for (const delay of this.#delays.splice(0)) delay.resolve();
    if (this.#delayTimer !== null) clearTimeout(this.#delayTimer);
    // A core of an earlier wasm instance is gone already (see #with).
    if (this.#generation === wasmGeneration()) this.#core.free();
    this.#storage?.close?.();
  }

  /**
   * Resolves once a receive has reached this engine (on `queue`, a URL or name, if given): when
   * a long poll starts waiting, or when a receive is answered at once (a message was already
   * there, or it was refused); at once when a long poll already waits. For tests on a
   * ManualClock: a request made through an SDK reaches the engine some ticks after `send()`
   * returns (the first call of a client, a few macrotasks), so a `clock.advance()` made before
   * then passes the poll by, and the poll then waits its whole WaitTimeSeconds from the new time.
   * `await engine.whenPolling()` between the two orders them without timers, real or fake. It
   * resolves on an answered receive too because the test cannot know which the receive will be:
   * one that waited only for a poll would hang whenever the queue already held a message.
   * Rejects with EngineClosedError on `close()`.
   * @param {string} [queue] queue URL or name
   * @returns {Promise<void>}
   */
  whenPolling(queue) {
    if (this.#closed) return Promise.reject(closedError());
    if (this.#stopped !== null) return Promise.reject(refusal(this.#stopped));
    const name = queue === undefined ? undefined : queueName(String(queue));
    if (this.#waiters.some((url) => name === undefined || queueName(url) === name)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const watcher = {
        name,
        resolve: () => (this.#pollWatchers.delete(watcher), resolve()),
        reject: (err) => (this.#pollWatchers.delete(watcher), reject(err)),
      };
      this.#pollWatchers.add(watcher);
    });
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
    // A name that is not a string is an unknown action like any other (not a TypeError from
    // deep inside the text encoding).
    if (typeof action !== "string") {
      action = action === null || (typeof action !== "object" && typeof action !== "function") ? String(action) : Object.prototype.toString.call(action);
    }
    const json = paramsJson(params);
    return this.#run((core, now) => JSON.parse(dispatchText(core, now, action, json, context)));
  }

  /** An internal operation of the core (moving messages between engines; not an SQS action). */
  [INTERNAL](op, params, context) {
    const json = JSON.stringify(params ?? {});
    return this.#run((core, now) => JSON.parse(dispatchText(core, now, op, json, context, true)));
  }

  /** One HTTP request, its head (src/http-head.js) and body: `{ status, head, body }`. */
  [HTTP](head, body, options) {
    return this.#run((core, now) => core.handleHttp(now, head, body, options));
  }

  /** `admitHttp`: a request (as for HTTP) admitted (size, SigV4) and read, or the refusal to answer it. */
  [ADMIT](head, body, options) {
    this.#assertOpen();
    return this.#core.admitHttp(this.#clock.now(), head, body, options);
  }

  [PARSED](parsed, requestId) {
    return this.#run((core, now) => core.dispatchParsed(now, parsed, requestId));
  }

  /** What the protocol layer reads from a request's head: `{ region, host, scheme, … }`. */
  [CONTEXT](head) {
    this.#assertOpen();
    return this.#with((core) => core.requestContext(head));
  }

  /**
   * A receive on `queueUrl` reached the engine: it ends the watches on its queue. Called before
   * the receive runs, and a receive that then waits registers its poll before anything is
   * awaited, so a watcher's continuation finds the poll waiting (or the receive answered).
   */
  [RECEIVED](queueUrl) {
    for (const watcher of [...this.#pollWatchers]) {
      if (watcher.name === undefined || watcher.name === queueName(String(queueUrl))) watcher.resolve();
    }
  }

  /** Resolves when a later call or tick makes the queue receivable, or at `deadline`. */
  [WAIT](queueUrl, context, deadline, signal) {
    this.#assertOpen();
    // (whenPolling's watches were ended by [RECEIVED] as the receive arrived, before this.)
    const promise = this.#waiters.add(queueUrl, context, deadline, signal);
    this.#arm();
    // An aborted poll leaves the waiters without waking the engine: re-arm, so that the timer
    // kept alive for its deadline lets go (Consumer.stop() would otherwise hold a Node process
    // open until the abandoned WaitTimeSeconds ran out). The caller handles the rejection.
    promise.catch(() => this.#arm());
    return promise;
  }

  /**
   * With `durability === "full"` storage, resolves once everything committed so far is durable.
   * Every async answer (receiveMessage and both HTTP handlers) passes through here last, so this
   * is also where realism latency holds it: the answer's trip back to the caller. With neither
   * (the usual test engine) there is nothing to wait for, and no promise is made: undefined.
   */
  [FLUSH]() {
    const storage = this.#storage;
    const durable = storage?.durability === "full" && typeof storage.flush === "function";
    if (!durable && !this.#realism?.latency) return undefined;
    return this.#flush(durable);
  }

  async #flush(durable) {
    await this.#latency();
    if (durable) await this.#storage.flush();
  }

  #assertOpen() {
    if (this.#closed) throw closedError();
    if (this.#stopped !== null) throw refusal(this.#stopped);
  }

  /**
   * Every call into the core goes through here. A panic or trap inside (src/internal-error.js)
   * stops this engine; a core that another engine's trap took away with its wasm instance is
   * rebuilt from storage, or, with nothing to rebuild from, stops this engine too.
   */
  #with(use) {
    if (this.#stopped !== null) throw refusal(this.#stopped);
    try {
      if (this.#generation !== wasmGeneration()) this.#recover();
      return use(this.#core);
    } catch (err) {
      if (!stoppedWasm(err)) throw err;
      throw this.#stop(internalError(err));
    }
  }

  #recover() {
    if (this.#storage === null) {
      const err = new Error(
        `wasq internal error: this engine's queues were lost when another engine's internal error restarted the wasm they lived in (${lastInternalError?.message})`,
        { cause: lastInternalError },
      );
      err.name = "WasqInternalError";
      throw err;
    }
    this.#core = this.#newCore();
    this.#applyRealism();
  }

  /**
   * After a panic or trap: refuse every later call with `err`, end what waits on this engine,
   * and start a fresh wasm instance for the engines made from now on (the memory of this one may
   * be torn, or full). What storage holds stays as the last commit left it: nothing of the
   * failed call was committed.
   */
  #stop(err) {
    if (this.#stopped !== null) return this.#stopped;
    this.#stopped = err;
    lastInternalError = err;
    if (this.#generation === wasmGeneration()) restartWasm(err);
    this.#clearTimer();
    this.#unsubscribe?.();
    this.#waiters.rejectAll(refusal(err));
    for (const watcher of [...this.#pollWatchers]) watcher.reject(refusal(err));
    this.#pollWatchers.clear();
    for (const delay of this.#delays.splice(0)) delay.resolve();
    if (this.#delayTimer !== null) clearTimeout(this.#delayTimer);
    return err;
  }

  /** A core over everything the storage holds, its event feed set as the listeners need. */
  #newCore() {
    const storage = this.#storage;
    const { WasqCore } = wasm();
    // With no storage there is nothing to restore, and no failed commit to rebuild after.
    let records;
    if (storage !== null) {
      // The records are written straight into the wasm memory: one copy of each.
      const into = (size) => {
        records = WasqCore.recordsBuffer(size);
        return records.view();
      };
      if (PACKED_LOADS.has(storage.loadAll)) storage[LOAD_PACKED](into);
      else packRecords(storage.loadAll(), into);
    }
    const core = records === undefined ? new WasqCore(this.#coreOptions, undefined) : WasqCore.restore(this.#coreOptions, records);
    this.#generation = wasmGeneration();
    core.setEventFeed(this.#eventFeed);
    return core;
  }

  #followListeners() {
    const on = this.#listeners.get("event")?.size > 0;
    if (on === this.#eventFeed || this.#closed) return;
    this.#eventFeed = on;
    // A core that is gone gets the setting when it is rebuilt (#newCore).
    if (this.#stopped === null && this.#generation === wasmGeneration()) this.#core.setEventFeed(on);
  }

  #run(call) {
    this.#assertOpen();
    const now = this.#clock.now();
    let result;
    let failure = null;
    try {
      result = this.#with((core) => call(core, now));
    } catch (err) {
      failure = { err };
    }
    // Nothing more to do in a wasm that stopped.
    if (this.#stopped !== null) throw failure.err;
    // Due work applied by the call (or by the receivable checks) is persisted in the same commit.
    const ready = this.#waiters.size === 0 ? null : this.#waiters.ready(now, (url, ctx) => this.#with((core) => core.receivable(now, url, ctx)));
    try {
      this.#commit();
      if (this.#eventFeed) this.#publishEvents();
    } finally {
      // Woken polls receive again on whichever core is current, so waking is right either way.
      if (ready !== null) for (const waiter of ready) waiter.wake();
      this.#arm();
    }
    if (failure) throw failure.err;
    return result;
  }

  #commit() {
    const storage = this.#storage;
    if (storage === null) return; // the core records no changes (persist: false)
    const bytes = this.#with((core) => core.takeChanges());
    if (bytes === undefined) return;
    try {
      // MemoryStorage takes the buffer itself, unless its commit() was replaced.
      if (storage.commit === MEMORY.commit) storage[COMMIT_PACKED](bytes);
      else storage.commit(unpackBatch(bytes));
    } catch (err) {
      // Nothing unacknowledged may stay visible: rebuild from what storage actually holds.
      this.#core.free();
      this.#core = this.#newCore();
      this.#applyRealism();
      throw err;
    }
  }

  #publishEvents() {
    const json = this.#with((core) => core.takeEvents());
    const listeners = this.#listeners.get("event");
    if (!listeners?.size || json === "[]") return;
    for (const event of JSON.parse(json)) {
      for (const listener of [...listeners]) {
        // The operation is committed: a listener's bug must neither turn it into a failure for
        // its caller (who would retry a send that happened) nor cost the other listeners and
        // the remaining events. It goes to the "error" listeners instead.
        try {
          listener(event);
        } catch (err) {
          this.#listenerFailed(err);
        }
      }
    }
  }

  #listenerFailed(err) {
    const report = globalThis.reportError ?? console.error;
    const listeners = this.#listeners.get("error");
    if (!listeners?.size) return report(err);
    for (const listener of [...listeners]) {
      try {
        listener(err);
      } catch (inner) {
        report(inner);
      }
    }
  }

  /** Hand the realism settings to the core (at construction and after a rebuild). */
  #applyRealism() {
    if (this.#realism) this.#core.setRealism(undefined, JSON.stringify(this.#realism));
    for (const { name, region, resolved } of this.#queueRealism.values()) {
      this.#core.setRealism(name, resolved, region);
    }
  }

  /** One latency draw in [min, max] ms (splitmix64 over the seed: same seed, same delays). */
  #drawLatency([min, max]) {
    this.#latencyState = (this.#latencyState + 0x9e3779b97f4a7c15n) & U64;
    let z = this.#latencyState;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & U64;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & U64;
    z ^= z >> 31n;
    return min + Number(z % BigInt(max - min + 1));
  }

  /**
   * Realism latency, on the engine's clock. A clock that can be set (ManualClock) is moved
   * forward, instantly, by the delay — everything that falls due meanwhile happens, as it would
   * while a real answer is in flight; delays of concurrent calls overlap as network delays do.
   * A clock that can only be subscribed to is waited on; any other clock is waited on in real time.
   */
  async #latency() {
    const range = this.#realism?.latency;
    if (!range || this.#closed) return;
    const ms = this.#drawLatency(range);
    if (ms === 0) return;
    const clock = this.#clock;
    const at = clock.now() + ms;
    if (typeof clock.subscribe === "function" && typeof clock.set === "function") {
      await new Promise((resolve) => {
        this.#delays.push({ at, resolve });
        this.#scheduleDelays();
      });
    } else if (typeof clock.subscribe === "function") {
      await new Promise((resolve) => {
        const off = clock.subscribe((now) => {
          if (now >= at) {
            off();
            resolve();
          }
        });
      });
    } else {
      while (clock.now() < at) await new Promise((resolve) => setTimeout(resolve, at - clock.now()));
    }
  }

  // One macrotask after the calls of this turn registered their delays, move the clock to the
  // earliest and release every delay that is over; repeat while any remain.
  #scheduleDelays() {
    if (this.#delayTimer !== null) return;
    this.#delayTimer = setTimeout(() => {
      this.#delayTimer = null;
      if (this.#delays.length === 0) return;
      const next = Math.min(...this.#delays.map((d) => d.at));
      let failure = null;
      try {
        if (next > this.#clock.now()) this.#clock.set(next);
      } catch (err) {
        failure = { err }; // a subscriber's failure (e.g. a storage commit in a tick)
      }
      const now = this.#clock.now();
      const due = this.#delays.filter((d) => d.at <= now);
      this.#delays = this.#delays.filter((d) => d.at > now);
      for (const d of due) d.resolve();
      if (this.#delays.length > 0) this.#scheduleDelays();
      if (failure) this.#report(failure.err);
    }, 0);
  }

  #report(err) {
    const listeners = this.#listeners.get("error");
    if (!listeners?.size) throw err;
    for (const listener of [...listeners]) listener(err);
  }

  #clearTimer() {
    // Called on the global scope: workerd's timer functions throw "Illegal invocation" when called
    // as a method of anything else (this engine, here).
    if (this.#timer !== null) this.#timerClear.call(globalThis, this.#timer);
    this.#timer = null;
    this.#timerAt = undefined;
    this.#timerWeak = false;
  }

  /** One timer for everything: the core's next deadline and the earliest long-poll end. */
  #arm() {
    if (this.#closed || this.#stopped !== null) return;
    if (this.#unsubscribe !== null) return; // the clock calls us when time moves
    const core = this.#timers ? this.#with((c) => c.nextDeadline()) : undefined;
    const poll = this.#waiters.earliestDeadline();
    const at = core === undefined ? poll : poll === undefined ? core : Math.min(core, poll);
    // A timer that fires no later than needed is kept: firing early only ticks and re-arms,
    // where re-arming on every call (most calls move the deadline later) costs a clearTimeout
    // and a setTimeout each time. Not one armed with another setTimeout than the one in place
    // now, i.e. before a test's fake timers (jest.useFakeTimers(), vi.useFakeTimers()) were
    // installed or removed: it fires only when the timers it belongs to do. A real one, armed
    // by an engine made before the fakes, ignored advanceTimersByTime() (a long poll hung until
    // the real delay passed), and a fake one from an earlier test never fired. It is cleared
    // with the clearTimeout of its own kind (#timerClear), since the other kind's ignores it.
    // A weak one is not kept for a long poll, which must hold the engine (see below).
    const keep = !(this.#timerWeak && poll !== undefined);
    if (keep && this.#timer !== null && this.#timerSet === setTimeout && (at === undefined || this.#timerAt <= at)) {
      if (poll === undefined) this.#timer.unref?.();
      else this.#timer.ref?.();
      return;
    }
    this.#clearTimer();
    if (at === undefined) return;
    const delay = Math.min(Math.max(0, at - this.#clock.now()), MAX_TIMER_DELAY);
    this.#timerAt = at;
    this.#timerSet = setTimeout;
    this.#timerClear = clearTimeout;
    // Internal deadlines alone must keep neither a Node process alive nor this engine in memory:
    // an engine nobody holds any more (a test that did not close it) is collected with its wasm
    // memory (bindgen frees the core when it is), where a timer holding it kept both, and a Jest
    // file's whole module registry, until a deadline days away (a message's retention). A
    // pending long poll holds both: its caller awaits this engine.
    this.#timerWeak = poll === undefined && typeof WeakRef === "function";
    this.#timer = setTimeout(this.#timerWeak ? Engine.#fireWeakly(new WeakRef(this)) : () => this.#fire(), delay);
    if (poll === undefined) this.#timer.unref?.();
  }

  /** A timer callback that holds `ref`'s engine weakly. Made here, not in #arm, so that the
   * closure's scope has no `this` (an arrow there would share #arm's scope, which has one). */
  static #fireWeakly(ref) {
    return () => ref.deref()?.#fire();
  }

  #fire() {
    this.#timer = null;
    this.#timerAt = undefined;
    this.#timerWeak = false;
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

/** The queue name of a queue URL (its last path segment), or the name itself. */
function queueName(queue) {
  if (!queue.includes("/")) return queue;
  const path = queue.replace(/[?#].*$/, "").replace(/\/+$/, "");
  return path.slice(path.lastIndexOf("/") + 1);
}

function camel(action) {
  return action[0].toLowerCase() + action.slice(1);
}

let actionMethods = false;

/**
 * A camelCase method for every SQS action the core knows (`sendMessage(params)` is
 * `dispatch("SendMessage", params)`), from the core's own list, so that no list here can drift
 * from it. Installed by the first constructor, because the list exists only once the wasm is
 * instantiated (at import on Node and workerd, after `await init()` in browsers) and no Engine
 * can be made before that. A method the class defines itself (receiveMessage, which long-polls)
 * is kept.
 */
function installActionMethods() {
  for (const action of engineFacts().actions) {
    const name = camel(action);
    if (Object.hasOwn(Engine.prototype, name)) continue;
    Object.defineProperty(Engine.prototype, name, {
      value: function (params = {}) {
        return this.dispatch(action, params);
      },
      writable: true,
      configurable: true,
    });
  }
  actionMethods = true;
}
