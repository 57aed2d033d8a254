// A polling consumer over any SQS-shaped engine: a wasq Engine, or an object with async
// receiveMessage / deleteMessage(Batch) / changeMessageVisibility(Batch) taking SQS JSON params.
//
// Life of a message: received → held (heartbeats keep extending its visibility) → waiting for a
// handler slot → handled → deleted on success, or released (visibility 0 or a backoff) on failure.
// FIFO queues get Lambda's rule: at most one handler per message group at a time, groups in
// parallel up to `concurrency`, a group's messages strictly in the order they were received.

const MAX_BATCH = 10;
const MAX_VISIBILITY = 43200;
const EVENTS = new Set(["processed", "error", "released", "stopped", "empty", "received"]);

/**
 * Timers on the engine's clock when it can be subscribed to (ManualClock: timers fire as the test
 * advances time, instantly), otherwise on the host's setTimeout.
 */
function timersOn(clock) {
  if (clock && typeof clock.subscribe === "function" && typeof clock.now === "function") {
    const pending = new Set();
    let unsubscribe = null;
    const fire = (now) => {
      const due = [...pending].filter((t) => t.due <= now).sort((a, b) => a.due - b.due);
      for (const t of due) {
        pending.delete(t);
        t.fn();
      }
      if (pending.size === 0 && unsubscribe) {
        unsubscribe();
        unsubscribe = null;
      }
    };
    return {
      set(fn, ms) {
        const t = { due: clock.now() + ms, fn };
        pending.add(t);
        unsubscribe ??= clock.subscribe(fire);
        return t;
      },
      clear(t) {
        pending.delete(t);
      },
    };
  }
  return {
    set: (fn, ms) => setTimeout(fn, ms),
    clear: (t) => clearTimeout(t),
  };
}

/**
 * Resolve on a later turn of the host's event loop, so that timers and I/O run between receive
 * rounds: a message released with visibility 0 is receivable at once (as in SQS), and every call
 * the loop awaits can settle in microtasks, so without a turn a failing handler or a long queue
 * would hold the loop forever. setImmediate (Node, Bun) and a MessageChannel message (browsers)
 * are tasks without setTimeout's 4 ms clamp on nested timers; setTimeout serves the rest (workerd).
 * Not scheduler.yield: its continuation runs ahead of other tasks, so timers would still starve.
 * Not scheduler.postTask: at "user-visible" it lets timers in and costs about what a channel
 * message does (a difference one turn per slice makes negligible), but not every browser has it;
 * at "user-blocking", as with scheduler.yield, timers starve.
 */
function nextTurn() {
  if (hostSetImmediate) return new Promise((resolve) => hostSetImmediate(resolve));
  if (globalThis.MessageChannel && globalThis.document) {
    // One channel for every consumer, each message waking the oldest waiter: a port with a
    // listener stays alive while entangled, so a channel per turn would pile up ports.
    if (!turns) {
      turns = { channel: new MessageChannel(), waiting: [] };
      turns.channel.port1.onmessage = () => turns.waiting.shift()();
    }
    return new Promise((resolve) => {
      turns.waiting.push(resolve);
      turns.channel.port2.postMessage(0);
    });
  }
  return new Promise((resolve) => hostSetTimeout(resolve, 0));
}
/**
 * The host's own, as this module found them: fake timers installed later (a test's
 * vi.useFakeTimers() or jest.useFakeTimers()) replace the globals, and a fake turn comes only
 * when the test advances them, while the consumer on a ManualClock has no timer to advance.
 */
const hostSetImmediate = globalThis.setImmediate?.bind(globalThis);
const hostSetTimeout = globalThis.setTimeout.bind(globalThis);
/** The browsers' channel for nextTurn(), made on first use. */
let turns = null;

/**
 * How long the consumers of this module may keep the host between its turns, ms of real time.
 * A turn costs a task (in Chromium ~as much as a round of ten messages), so one every round
 * halved a browser's drain rate; one every few ms costs little and still lets timers, I/O,
 * input and rendering in promptly, as the browsers' and React's schedulers slice work (5 ms).
 * Real time, not the engine's clock: a ManualClock stands still unless the test moves it.
 */
const SLICE_MS = 5;
/**
 * A turn at least this often, in receive rounds, whatever the time says: on deployed Workers
 * performance.now() moves only after I/O, and fake timers (Jest's, Sinon's) freeze it, yet a
 * handler that always fails must still let the host in.
 */
const SLICE_ROUNDS = 64;
const realNow = globalThis.performance?.now ? () => globalThis.performance.now() : () => Date.now();

/**
 * One slice for every consumer in the realm: they interleave in microtasks, so a slice each
 * would let n consumers hold the host for n slices. Once it is spent, each consumer asks for a
 * turn at its next receive round, and the first turn the host gives starts the next slice. Each
 * asks for a turn of its own rather than sharing one: a turn that never comes (a fake
 * setImmediate, where fake timers were installed before wasq was loaded, then removed unfired)
 * holds only its consumer.
 */
const slice = { start: realNow(), rounds: 0 };

function sliceSpent() {
  return ++slice.rounds >= SLICE_ROUNDS || realNow() - slice.start >= SLICE_MS;
}

async function hostTurn() {
  await nextTurn();
  slice.start = realNow();
  slice.rounds = 0;
}

function checkSeconds(value, what, { min = 0, max = MAX_VISIBILITY } = {}) {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`Consumer: ${what} must be an integer from ${min} to ${max}, got ${value}`);
  }
}

function groupOf(message) {
  return message.Attributes?.MessageGroupId;
}

export class Consumer {
  #engine;
  #queueUrl;
  #handleMessage;
  #handleMessageBatch;
  #batchSize;
  #waitTimeSeconds;
  #visibilityTimeout;
  #heartbeatInterval;
  #release;
  #concurrency;
  #fifo;
  #receiveParams;
  #errorBackoffMs;
  #timers;
  #listeners = new Map();

  #running = false;
  #loop = null;
  #receiveAbort = null;
  #waiting = []; // items received and not yet started, in arrival order
  #active = 0;
  #busyGroups = new Set();
  #pendingAcks = new Set(); // promises of deletes/releases in progress
  #wake = null; // resolves the loop's wait for a free slot
  #stopping = null;

  /**
   * @param {object} options
   * @param {object} options.engine a wasq Engine or an object with the SQS message methods
   * @param {string} options.queueUrl
   * @param {(message: object) => Promise<void>} [options.handleMessage]
   * @param {(messages: object[]) => Promise<void | object[]>} [options.handleMessageBatch]
   *   resolves to undefined (all succeeded) or the messages to delete (the rest are released)
   * @param {number} [options.batchSize] MaxNumberOfMessages, 1–10 (default 10)
   * @param {number} [options.waitTimeSeconds] long-poll wait, 0–20 (default 20)
   * @param {number} [options.visibilityTimeout] seconds; also what each heartbeat extends to
   * @param {number} [options.heartbeatInterval] seconds between visibility extensions while held
   * @param {"immediate" | false | { backoff: (receiveCount: number) => number }} [options.releaseOnFailure]
   *   "immediate" (default): visibility 0; backoff: visibility = backoff(ApproximateReceiveCount);
   *   false: leave the message to reappear when its visibility timeout ends
   * @param {number} [options.concurrency] handlers (or batch handlers) in parallel (default 1)
   * @param {string[]} [options.attributeNames] system attributes to receive (MessageSystemAttributeNames)
   * @param {string[]} [options.messageAttributeNames] message attributes to receive
   * @param {AbortSignal} [options.signal] aborting it stops the consumer gracefully
   * @param {{ now(): number, subscribe?: Function }} [options.clock] timers' clock (default engine.clock)
   * @param {number} [options.errorBackoffMs] pause after a failed receive (default 1000)
   */
  constructor(options = {}) {
    const {
      engine,
      queueUrl,
      handleMessage,
      handleMessageBatch,
      batchSize = 10,
      waitTimeSeconds = 20,
      visibilityTimeout,
      heartbeatInterval,
      releaseOnFailure = "immediate",
      concurrency = 1,
      attributeNames = [],
      messageAttributeNames = [],
      signal,
      clock = engine?.clock,
      errorBackoffMs = 1000,
    } = options;
    if (!engine || typeof engine.receiveMessage !== "function") {
      throw new TypeError("Consumer: options.engine must have receiveMessage (a wasq Engine or an SQS-like object)");
    }
    if (typeof queueUrl !== "string" || queueUrl === "") throw new TypeError("Consumer: options.queueUrl is required");
    if ((typeof handleMessage === "function") === (typeof handleMessageBatch === "function")) {
      throw new TypeError("Consumer: give exactly one of handleMessage or handleMessageBatch");
    }
    checkSeconds(batchSize, "batchSize", { min: 1, max: MAX_BATCH });
    checkSeconds(waitTimeSeconds, "waitTimeSeconds", { max: 20 });
    if (visibilityTimeout !== undefined) checkSeconds(visibilityTimeout, "visibilityTimeout");
    if (heartbeatInterval !== undefined) {
      checkSeconds(heartbeatInterval, "heartbeatInterval", { min: 1 });
      if (visibilityTimeout === undefined || heartbeatInterval >= visibilityTimeout) {
        throw new RangeError("Consumer: heartbeatInterval needs a visibilityTimeout greater than it");
      }
    }
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new RangeError(`Consumer: concurrency must be a positive integer, got ${concurrency}`);
    }
    const backoff = releaseOnFailure?.backoff;
    if (releaseOnFailure !== "immediate" && releaseOnFailure !== false && typeof backoff !== "function") {
      throw new TypeError('Consumer: releaseOnFailure must be "immediate", false or { backoff(receiveCount) }');
    }
    this.#engine = engine;
    this.#queueUrl = queueUrl;
    this.#handleMessage = handleMessage;
    this.#handleMessageBatch = handleMessageBatch;
    this.#batchSize = batchSize;
    this.#waitTimeSeconds = waitTimeSeconds;
    this.#visibilityTimeout = visibilityTimeout;
    this.#heartbeatInterval = heartbeatInterval;
    this.#release = releaseOnFailure;
    this.#concurrency = concurrency;
    this.#fifo = queueUrl.endsWith(".fifo");
    this.#errorBackoffMs = errorBackoffMs;
    this.#timers = timersOn(clock);

    // The consumer needs the group to schedule FIFO messages and the receive count to back off.
    const systemNames = new Set(attributeNames);
    if (this.#fifo) systemNames.add("MessageGroupId");
    if (typeof backoff === "function") systemNames.add("ApproximateReceiveCount");
    this.#receiveParams = {
      QueueUrl: queueUrl,
      MaxNumberOfMessages: batchSize,
      WaitTimeSeconds: waitTimeSeconds,
      ...(visibilityTimeout !== undefined && { VisibilityTimeout: visibilityTimeout }),
      ...(systemNames.size > 0 && { MessageSystemAttributeNames: [...systemNames] }),
      ...(messageAttributeNames.length > 0 && { MessageAttributeNames: [...messageAttributeNames] }),
    };

    if (signal) {
      if (signal.aborted) throw new Error("Consumer: options.signal is already aborted");
      signal.addEventListener("abort", () => void this.stop({ wait: true }), { once: true });
    }
  }

  /**
   * Events: "received" (messages), "processed" (message, deleted after success), "released"
   * (message, visibility seconds), "error" (err, messages?), "empty" (a receive returned none),
   * "stopped".
   */
  on(name, listener) {
    if (!EVENTS.has(name)) throw new TypeError(`Consumer: unknown event ${JSON.stringify(name)}`);
    if (typeof listener !== "function") throw new TypeError("Consumer: listener must be a function");
    if (!this.#listeners.has(name)) this.#listeners.set(name, new Set());
    this.#listeners.get(name).add(listener);
    return this;
  }

  off(name, listener) {
    this.#listeners.get(name)?.delete(listener);
    return this;
  }

  get isRunning() {
    return this.#running;
  }

  /** Start polling. Starting a running consumer does nothing. */
  start() {
    if (this.#running) return this;
    if (this.#stopping) throw new Error("Consumer: cannot start while stopping; await stop() first");
    this.#running = true;
    this.#loop = this.#poll();
    return this;
  }

  /**
   * Stop receiving. With `wait` (default) the promise resolves once in-flight handlers have
   * finished and their deletes/releases are done; messages received but not started are released.
   * @param {{ wait?: boolean }} [options]
   */
  stop({ wait = true } = {}) {
    if (!this.#stopping) {
      this.#running = false;
      this.#receiveAbort?.abort();
      this.#wakeLoop();
      this.#stopping = this.#drain().finally(() => {
        this.#stopping = null;
        this.#emit("stopped");
      });
    }
    return wait ? this.#stopping : Promise.resolve();
  }

  async #drain() {
    await this.#loop;
    // Not started: give them straight back (they did not fail, so no backoff).
    this.#handBack(this.#waiting);
    this.#waiting = [];
    while (this.#active > 0 || this.#pendingAcks.size > 0) {
      if (this.#pendingAcks.size > 0) await Promise.allSettled([...this.#pendingAcks]);
      else await new Promise((resolve) => (this.#wake = resolve));
    }
  }

  #emit(name, ...args) {
    const listeners = this.#listeners.get(name);
    if (name === "error" && !listeners?.size) {
      // An unobserved consumer failure should still be seen somewhere, without killing the loop.
      (globalThis.reportError ?? console.error)(args[0]);
      return;
    }
    for (const listener of listeners ?? []) {
      try {
        listener(...args);
      } catch (err) {
        if (name !== "error") this.#emit("error", err);
      }
    }
  }

  #wakeLoop() {
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }

  #hasCapacity() {
    return this.#waiting.length === 0 && this.#active < this.#concurrency;
  }

  async #poll() {
    // The first receive goes out at start(); later ones give the host a turn when the slice is spent.
    let first = true;
    while (this.#running) {
      if (!this.#hasCapacity()) {
        await new Promise((resolve) => (this.#wake = resolve));
        continue;
      }
      if (!first && sliceSpent()) {
        await hostTurn();
        if (!this.#running) break;
      }
      first = false;
      const abort = new AbortController();
      this.#receiveAbort = abort;
      let messages;
      try {
        const out = await this.#engine.receiveMessage({ ...this.#receiveParams }, { signal: abort.signal });
        messages = out?.Messages ?? [];
      } catch (err) {
        if (!this.#running) break;
        if (this.#engine.closed === true) {
          // The engine was closed under a running consumer: no receive can succeed again, and
          // retrying every errorBackoffMs would report the same error forever and keep the
          // process alive. Stop, as stop() would ("stopped" is emitted).
          void this.stop({ wait: false });
          break;
        }
        this.#emit("error", err);
        await this.#sleep(this.#errorBackoffMs);
        continue;
      } finally {
        this.#receiveAbort = null;
      }
      if (!this.#running) {
        // Stopped while this receive was on its way back: nothing will process these.
        this.#handBack([{ messages, lease: null }]);
        break;
      }
      if (messages.length === 0) {
        this.#emit("empty");
        // Without long polling an empty queue would spin; yield to the clock instead.
        if (this.#waitTimeSeconds === 0) await this.#sleep(100);
        continue;
      }
      this.#emit("received", messages);
      this.#accept(messages);
    }
  }

  #sleep(ms) {
    return new Promise((resolve) => {
      const timer = this.#timers.set(() => {
        this.#wake = null;
        resolve();
      }, ms);
      // stop() must not wait out a back-off.
      this.#wake = () => {
        this.#timers.clear(timer);
        resolve();
      };
    });
  }

  #accept(messages) {
    const lease = this.#heartbeatInterval ? this.#startHeartbeat(messages) : null;
    const item = (msgs) => ({
      messages: msgs,
      groups: new Set(this.#fifo ? msgs.map(groupOf).filter((g) => g !== undefined) : []),
      lease,
    });
    if (this.#handleMessageBatch) this.#waiting.push(item(messages));
    else for (const message of messages) this.#waiting.push(item([message]));
    this.#schedule();
  }

  /** Start every waiting item that has a slot and whose groups are neither busy nor queued earlier. */
  #schedule() {
    // Once stopping, nothing new starts; stop() hands the waiting messages back.
    if (!this.#running) return;
    const heldBack = new Set();
    for (let i = 0; i < this.#waiting.length && this.#active < this.#concurrency; ) {
      const item = this.#waiting[i];
      const blocked = [...item.groups].some((g) => this.#busyGroups.has(g) || heldBack.has(g));
      if (blocked) {
        for (const g of item.groups) heldBack.add(g);
        i++;
        continue;
      }
      this.#waiting.splice(i, 1);
      this.#run(item);
    }
  }

  async #run(item) {
    this.#active++;
    for (const g of item.groups) this.#busyGroups.add(g);
    let succeeded;
    let failed;
    try {
      if (this.#handleMessageBatch) {
        const result = await this.#handleMessageBatch(item.messages);
        if (result === undefined || result === null) {
          succeeded = item.messages;
          failed = [];
        } else {
          const ok = new Set(Array.from(result, (m) => m?.ReceiptHandle ?? m));
          succeeded = item.messages.filter((m) => ok.has(m.ReceiptHandle) || ok.has(m));
          failed = item.messages.filter((m) => !succeeded.includes(m));
        }
      } else {
        await this.#handleMessage(item.messages[0]);
        succeeded = item.messages;
        failed = [];
      }
    } catch (err) {
      this.#emit("error", err, item.messages);
      succeeded = [];
      failed = item.messages;
    }
    if (failed.length && this.#fifo) this.#handBack(this.#takeLaterInGroups(failed));
    for (const g of item.groups) this.#busyGroups.delete(g);
    this.#active--;
    if (succeeded.length) this.#track(this.#delete(succeeded, item.lease));
    if (failed.length) this.#track(this.#releaseFailed(failed, item.lease));
    this.#schedule();
    this.#wakeLoop();
  }

  /**
   * A failed FIFO message must come back before anything after it in its group, so the group's
   * later messages this consumer holds are handed back unprocessed too.
   */
  #takeLaterInGroups(failed) {
    const groups = new Set(failed.map(groupOf).filter((g) => g !== undefined));
    const taken = this.#waiting.filter((item) => [...item.groups].some((g) => groups.has(g)));
    this.#waiting = this.#waiting.filter((item) => !taken.includes(item));
    return taken;
  }

  /** Return unprocessed items' messages to the queue at once (they did not fail: no backoff). */
  #handBack(items) {
    for (const item of items) {
      this.#letGo(item.lease, item.messages);
      this.#track(this.#changeVisibility(item.messages, () => 0));
    }
  }

  #track(promise) {
    this.#pendingAcks.add(promise);
    promise.finally(() => {
      this.#pendingAcks.delete(promise);
      this.#wakeLoop();
    });
  }

  #startHeartbeat(messages) {
    const lease = { held: new Set(messages), timer: null };
    const beat = () => {
      if (lease.held.size === 0) return;
      lease.timer = this.#timers.set(beat, this.#heartbeatInterval * 1000);
      this.#track(this.#changeVisibility([...lease.held], () => this.#visibilityTimeout, { quiet: true }));
    };
    lease.timer = this.#timers.set(beat, this.#heartbeatInterval * 1000);
    return lease;
  }

  #letGo(lease, messages) {
    if (!lease) return;
    for (const m of messages) lease.held.delete(m);
    if (lease.held.size === 0 && lease.timer !== null) {
      this.#timers.clear(lease.timer);
      lease.timer = null;
    }
  }

  async #delete(messages, lease) {
    this.#letGo(lease, messages);
    const failures = await this.#batched(messages, "deleteMessageBatch", "deleteMessage", (m) => ({
      ReceiptHandle: m.ReceiptHandle,
    }));
    for (const m of messages) {
      if (failures.has(m)) this.#emit("error", failures.get(m), [m]);
      else this.#emit("processed", m);
    }
  }

  async #releaseFailed(messages, lease) {
    const policy = this.#release;
    this.#letGo(lease, messages);
    if (policy === false) return;
    const seconds =
      policy === "immediate"
        ? () => 0
        : (m) => {
            const raw = Number(policy.backoff(Number(m.Attributes?.ApproximateReceiveCount ?? 1)));
            return Number.isFinite(raw) ? Math.min(MAX_VISIBILITY, Math.max(0, Math.round(raw))) : 0;
          };
    await this.#changeVisibility(messages, seconds);
  }

  async #changeVisibility(messages, seconds, { quiet = false } = {}) {
    const timeouts = new Map(messages.map((m) => [m, seconds(m)]));
    const failures = await this.#batched(messages, "changeMessageVisibilityBatch", "changeMessageVisibility", (m) => ({
      ReceiptHandle: m.ReceiptHandle,
      VisibilityTimeout: timeouts.get(m),
    }));
    for (const m of messages) {
      if (failures.has(m)) this.#emit("error", failures.get(m), [m]);
      else if (!quiet) this.#emit("released", m, timeouts.get(m));
    }
  }

  /**
   * Run a per-message call in batches of ten when the engine has the batch form. Returns the
   * messages that failed, each with its Error; never throws.
   */
  async #batched(messages, batchMethod, singleMethod, entryOf) {
    const failures = new Map();
    const engine = this.#engine;
    if (typeof engine[batchMethod] === "function") {
      for (let i = 0; i < messages.length; i += MAX_BATCH) {
        const chunk = messages.slice(i, i + MAX_BATCH);
        try {
          const out = await engine[batchMethod]({
            QueueUrl: this.#queueUrl,
            Entries: chunk.map((m, j) => ({ Id: `m${j}`, ...entryOf(m) })),
          });
          for (const f of out?.Failed ?? []) {
            const m = chunk[Number(String(f.Id).slice(1))];
            if (!m) continue;
            const err = new Error(`${batchMethod} failed for a message: ${f.Code}: ${f.Message ?? ""}`);
            err.code = f.Code;
            failures.set(m, err);
          }
        } catch (err) {
          for (const m of chunk) failures.set(m, err);
        }
      }
    } else {
      for (const m of messages) {
        try {
          await engine[singleMethod]({ QueueUrl: this.#queueUrl, ...entryOf(m) });
        } catch (err) {
          failures.set(m, err);
        }
      }
    }
    return failures;
  }
}
