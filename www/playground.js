// The playground's model: one engine, one manual clock, the reader's consumers, and the log of every
// action taken. The log is the page's whole state: replaying it on a fresh engine with the same
// seed and start time gives the same ids, handles and events, which is what makes `?log=` links
// reproduce "this exact situation".
//
// Actions are small arrays so that links stay short:
//   ["q", name, attributes]              CreateQueue
//   ["sel", name]                         show this queue
//   ["s", queue, {body, group, dedup, delay}]   SendMessage
//   ["b", queue, [{body, group, dedup, delay}, …]] SendMessageBatch
//   ["c"]                                 add a consumer
//   ["r", consumer, queue, {max, vt, wait}] ReceiveMessage (vt/wait omitted = queue default / 0)
//   ["d", consumer, label]                DeleteMessage with the handle the consumer holds
//   ["v", consumer, label, seconds]       ChangeMessageVisibility with that handle
//   ["h", consumer, label, on]            heartbeat: keep extending the visibility while on
//   ["t", ms]                             let time pass
//   ["R", mode, knobs]                    realism: "off", "aws", or "custom" with the knob names on

export const START = Date.UTC(2026, 0, 1, 9, 0, 0);
export const SEED = 1;
// A heartbeat extends to this many seconds, whenever less than half of it is left.
export const HEARTBEAT_SECONDS = 30;
/** When a heartbeat extends a held message: half its extension before the message would show. */
const heartbeatAt = (visibleAt) => visibleAt - (HEARTBEAT_SECONDS * 1000) / 2;
const REMOVED_STATES = new Set(["deleted", "expired", "purged", "moved"]);
// The page's knob values: strong enough to see within a few clicks. Throttling's quotas are
// lowered from SQS's 300 calls/s so that clicking can hit them.
export const REALISM_KNOBS = {
  duplicateDelivery: { duplicateDelivery: 0.3 },
  reorder: { reorder: true },
  shortPollSampling: { shortPollSampling: 0.5 },
  throttling: { throttling: { fifoPerAction: 3, standardPerAction: 3 } },
  latency: { latency: [5, 30] },
};
const REMOVALS = new Set(["deleted", "expired", "purged", "moved-by-task", "moved-to-dead-letter-queue"]);

export function nowOf(clock) {
  return typeof clock.now === "function" ? clock.now() : clock.now;
}

export class Playground {
  constructor(wasq) {
    this.wasq = wasq;
    this.clock = new wasq.ManualClock(START);
    this.engine = new wasq.Engine({ clock: this.clock, seed: SEED });
    this.log = [];
    this.queues = new Map(); // name -> url
    this.selected = null;
    this.consumers = [];
    this.events = [];
    this.labels = new Map(); // messageId -> "m1"
    this.ids = new Map(); // "m1" -> messageId
    this.windows = new Map(); // messageId -> {from, to}: the current visibility window
    this.flashes = []; // {messageId, text} for the view to show once
    this.removedAt = new Map(); // messageId -> when it left the queue
    this.sendNote = "";
    this.errors = new Map(); // origin -> {name, code, message, httpStatus}
    this.listeners = new Set();
    this.realism = { mode: "off", knobs: [] };
    this.engine.on("event", (e) => this.#onEvent(e));
    this.addConsumer();
    this.addConsumer();
  }

  get now() {
    return nowOf(this.clock);
  }

  queueUrl(name) {
    return this.queues.get(name);
  }

  label(messageId) {
    let l = this.labels.get(messageId);
    if (!l) {
      l = `m${this.labels.size + 1}`;
      this.labels.set(messageId, l);
      this.ids.set(l, messageId);
    }
    return l;
  }

  onChange(fn) {
    this.listeners.add(fn);
  }

  changed() {
    for (const fn of this.listeners) fn();
  }

  addConsumer() {
    const name = String.fromCharCode(65 + this.consumers.length);
    this.consumers.push({ name, held: new Map(), pending: 0, result: "" });
  }

  #onEvent(e) {
    this.events.push(e);
    const id = e.messageId;
    if (id) this.label(id);
    if (e.type === "received") this.windows.set(id, { from: e.at, to: e.visibleAt });
    if (e.type === "visibility-changed") this.windows.set(id, { from: e.at, to: e.visibleAt });
    if (e.type === "deduplicated") this.flashes.push({ messageId: id, text: "deduplicated" });
    if (e.type === "duplicate-delivered") this.flashes.push({ messageId: id, text: "will be delivered again" });
    if (REMOVALS.has(e.type)) this.removedAt.set(id, e.at);
    if (e.type === "queue-deleted") this.queues.delete(e.queue);
  }

  #startAction() {
    this.errors.clear();
    this.sendNote = "";
    for (const c of this.consumers) {
      if (!c.pending) c.result = "";
      for (const [label, h] of c.held) {
        const m = this.peekMessage(h.queueUrl, h.messageId);
        if (!m || REMOVED_STATES.has(m.state) || m.state === "dead-lettered") c.held.delete(label);
      }
    }
  }

  #fail(origin, err) {
    this.errors.set(origin, {
      name: err.name, code: err.code, message: err.message, httpStatus: err.httpStatus,
    });
  }

  /** Runs one action, records it, and returns the SQS error it raised (or null). */
  async apply(action, { record = true } = {}) {
    if (record) this.log.push(action);
    const [op] = action;
    const origin = op === "q" ? "create" : op === "s" || op === "b" ? "send" : op === "t" ? "clock" : `consumer:${action[1]}`;
    // Every box says what the reader's last action did: a new action (not time passing) clears
    // the errors and notes of the ones before it, and forgets handles to messages that are gone.
    if (op !== "t") this.#startAction();
    let error = null;
    try {
      await this.#run(action);
    } catch (err) {
      if (!(err instanceof Error) || !err.name || err.name === "Error" || err.name === "TypeError") {
        // Not an SQS error (an unknown action, a handle this consumer does not hold): nothing ran, so
        // it must not stay in the log, or every link made from here on fails to replay.
        if (record && this.log[this.log.length - 1] === action) this.log.pop();
        throw err;
      }
      this.#fail(origin, err);
      error = err;
    }
    this.changed();
    return error;
  }

  async #run(action) {
    const [op, a, b, c] = action;
    switch (op) {
      case "q": {
        const params = { QueueName: a };
        if (b && Object.keys(b).length) params.Attributes = this.#attributesFor(b);
        const out = this.engine.dispatch("CreateQueue", params);
        this.queues.set(a, out.QueueUrl);
        // A queue that only serves as a dead-letter queue is shown inside its source's lane.
        if (!this.selected || !this.isDeadLetterQueue(a)) this.selected = a;
        return;
      }
      case "sel":
        if (this.queues.has(a)) this.selected = a;
        return;
      case "s": {
        const from = this.events.length;
        this.engine.dispatch("SendMessage", { QueueUrl: this.#url(a), ...sendParams(b) });
        this.#noteSends(from);
        return;
      }
      case "b": {
        const from = this.events.length;
        const out = this.engine.dispatch("SendMessageBatch", {
          QueueUrl: this.#url(a),
          Entries: b.map((m, i) => ({ Id: `e${i + 1}`, ...sendParams(m) })),
        });
        this.#noteSends(from);
        if (out.Failed && out.Failed.length) {
          const f = out.Failed[0];
          const err = new Error(`${out.Failed.length} of ${b.length} entries failed; ${f.Id}: ${f.Message}`);
          err.name = f.Code;
          err.code = f.Code;
          err.httpStatus = 200;
          throw err;
        }
        return;
      }
      case "c":
        this.addConsumer();
        return;
      case "r":
        return this.#receive(this.consumers[a], b, c || {});
      case "d": {
        const h = this.#held(a, b);
        this.engine.dispatch("DeleteMessage", { QueueUrl: h.queueUrl, ReceiptHandle: h.receiptHandle });
        // Done with it, as a real consumer would be; a refused delete keeps the handle to retry.
        this.consumers[a].held.delete(b);
        return;
      }
      case "v": {
        const h = this.#held(a, b);
        this.engine.dispatch("ChangeMessageVisibility", {
          QueueUrl: h.queueUrl, ReceiptHandle: h.receiptHandle, VisibilityTimeout: c,
        });
        return;
      }
      case "h": {
        const h = this.#held(a, b);
        h.heartbeat = Boolean(c);
        if (h.heartbeat) this.#beat(Number(a), this.now);
        return;
      }
      case "t":
        return this.advance(a);
      case "R":
        return this.#setRealism(a, b || []);
      default:
        throw new TypeError(`unknown action ${JSON.stringify(action)}`);
    }
  }

  #setRealism(mode, knobs) {
    let setting = null;
    if (mode === "aws") setting = "aws";
    else if (mode === "custom") setting = Object.assign({}, ...knobs.map((k) => REALISM_KNOBS[k] || {}));
    this.engine.setRealism(undefined, setting);
    this.realism = { mode, knobs: mode === "custom" ? [...knobs] : [] };
  }

  /**
   * How the page names a message: a realism duplicate shares its original's message id, so its
   * card, label and handle are keyed apart ("m3·copy").
   */
  keyOf(m) {
    return m.duplicateCopy ? `${m.messageId}·copy` : m.messageId;
  }

  labelOf(m) {
    return m.duplicateCopy ? `${this.label(m.messageId)}·copy` : this.label(m.messageId);
  }

  // A redrive policy can name its dead-letter queue as {dlq: name}: links and scenarios then do not
  // depend on the engine's account id or region.
  #attributesFor(attrs) {
    const out = { ...attrs };
    const rp = attrs.RedrivePolicy;
    if (rp && typeof rp === "object") {
      const arn = this.engine.dispatch("GetQueueAttributes", {
        QueueUrl: this.#url(rp.dlq), AttributeNames: ["QueueArn"],
      }).Attributes.QueueArn;
      out.RedrivePolicy = JSON.stringify({ deadLetterTargetArn: arn, maxReceiveCount: rp.maxReceiveCount });
    }
    return out;
  }

  // What a send did, in words, for the send form: duplicates are accepted without an error, so
  // the form must say that nothing was enqueued.
  #noteSends(from) {
    const parts = [];
    for (const e of this.events.slice(from)) {
      if (e.type === "sent") parts.push(`sent ${this.label(e.messageId)}`);
      if (e.type === "deduplicated") parts.push(`deduplicated: accepted but not enqueued (duplicate of ${this.label(e.messageId)})`);
    }
    this.sendNote = parts.join("; ");
  }

  #url(name) {
    const url = this.queues.get(name);
    if (url) return url;
    // Let the engine answer for a queue the page never created: its error is the real one.
    return this.engine.dispatch("GetQueueUrl", { QueueName: name }).QueueUrl;
  }

  #held(consumer, label) {
    const h = this.consumers[consumer]?.held.get(label);
    if (!h) throw new TypeError(`consumer ${this.consumers[consumer]?.name ?? consumer} holds no ${label}`);
    return h;
  }

  async #receive(consumer, queue, { max, vt, wait }) {
    const params = { QueueUrl: this.#url(queue), MaxNumberOfMessages: max ?? 1 };
    if (vt !== undefined && vt !== "") params.VisibilityTimeout = vt;
    if (wait) params.WaitTimeSeconds = wait;
    consumer.result = wait ? `waiting up to ${wait} s…` : "";
    consumer.pending++;
    let call;
    try {
      call = this.engine.receiveMessage(params);
    } catch (err) {
      call = Promise.reject(err);
    }
    // Refused at once (a bad parameter): thrown from here, so that apply() reports it and returns
    // it to a scenario step that expects it. A long poll refused later is reported when it is.
    let answeredAtOnce = true;
    let refused = null;
    const done = call.then(
      (out) => {
        consumer.pending--;
        const msgs = out.Messages || [];
        const shown = this.#peekAll(params.QueueUrl);
        const labels = msgs.map((m) => {
          const copy = shown.find((p) => p.receiptHandle === m.ReceiptHandle)?.duplicateCopy;
          return copy ? `${this.label(m.MessageId)}·copy` : this.label(m.MessageId);
        });
        for (const [i, m] of msgs.entries()) {
          const label = labels[i];
          consumer.held.set(label, {
            messageId: m.MessageId, receiptHandle: m.ReceiptHandle, queueUrl: params.QueueUrl,
            queue, body: m.Body, heartbeat: false,
          });
        }
        consumer.result = msgs.length ? `received ${labels.join(", ")}` : "no messages";
        this.changed();
      },
      (err) => {
        consumer.pending--;
        consumer.result = "";
        if (answeredAtOnce) {
          refused = err;
          return;
        }
        this.#fail(`consumer:${this.consumers.indexOf(consumer)}`, err);
        this.changed();
      },
    );
    // A receive that can answer at once has answered before the next action runs; a long poll
    // stays pending and is resolved by the clock.
    await Promise.race([done, settle()]);
    answeredAtOnce = false;
    if (refused) throw refused;
  }

  /** The in-flight message a handle refers to, if that handle is still the live one. */
  liveHold(h) {
    // Matched by handle too: a realism duplicate shares its original's message id.
    const m = this.#peekAll(h.queueUrl).find((p) => p.messageId === h.messageId && p.receiptHandle === h.receiptHandle);
    return m && m.state === "in-flight" ? m : null;
  }

  #peekAll(queueUrl) {
    try {
      return this.engine.peek(queueUrl).messages;
    } catch {
      return [];
    }
  }

  peekMessage(queueUrl, messageId) {
    try {
      return this.engine.peek(queueUrl).messages.find((m) => m.messageId === messageId) || null;
    } catch {
      return null;
    }
  }

  /** Extends every heartbeat whose visibility is at least half spent; returns the next time one is due. */
  #beat(onlyConsumer, now) {
    let next = Infinity;
    this.consumers.forEach((consumer, ci) => {
      if (onlyConsumer !== undefined && ci !== onlyConsumer) return;
      for (const h of consumer.held.values()) {
        if (!h.heartbeat) continue;
        const m = this.liveHold(h);
        if (!m) { h.heartbeat = false; continue; }
        const due = heartbeatAt(m.visibleAt);
        if (due <= now) {
          try {
            this.engine.dispatch("ChangeMessageVisibility", {
              QueueUrl: h.queueUrl, ReceiptHandle: h.receiptHandle, VisibilityTimeout: HEARTBEAT_SECONDS,
            });
            next = Math.min(next, heartbeatAt(now + HEARTBEAT_SECONDS * 1000));
          } catch (err) {
            // The 12-hour cap ends every heartbeat eventually: show why it stopped.
            h.heartbeat = false;
            this.#fail(`consumer:${ci}`, err);
          }
        } else {
          next = Math.min(next, due);
        }
      }
    });
    return next;
  }

  /** Lets `ms` pass, stopping at each heartbeat so that none misses its deadline. */
  async advance(ms) {
    const target = this.now + Math.max(0, Math.round(ms));
    for (let guard = 0; guard < 100000; guard++) {
      // Runs at the target too: a heartbeat due exactly when the step ends beats now, as the engine's
      // own deadlines (a visibility timeout ending at the target) do. Otherwise "to next deadline"
      // stopped on a heartbeat without running it and then said "next deadline … (in 0 s)".
      const due = this.#beat(undefined, this.now);
      if (this.now >= target) break;
      const stop = Math.min(target, due);
      if (stop > this.now) this.clock.advance(stop - this.now);
      // Only a pending long poll needs its promise callbacks to run between heartbeats.
      if (this.consumers.some((c) => c.pending)) await settle();
    }
    await settle();
  }

  /** Advances time from the play loop or a step button, logging it (merged with the previous step). */
  async passTime(ms) {
    ms = Math.round(ms);
    if (ms <= 0) return;
    const last = this.log[this.log.length - 1];
    // A new entry, not `last[1] += ms`: the last one can be a scenario step's own action
    // (scenarios.js), and time added to it made every later replay of that step (Restart, Back
    // and Forward, a link to the step) run longer than the scenario says.
    if (last && last[0] === "t") this.log[this.log.length - 1] = ["t", last[1] + ms];
    else this.log.push(["t", ms]);
    await this.advance(ms);
    this.changed();
  }

  /** The next moment something happens by itself: an engine deadline or a heartbeat. */
  nextDeadline() {
    const d = this.engine.nextDeadline();
    let next = d === null || d === undefined ? Infinity : Number(d);
    for (const c of this.consumers) {
      for (const h of c.held.values()) {
        if (!h.heartbeat) continue;
        const m = this.liveHold(h);
        if (m) next = Math.min(next, heartbeatAt(m.visibleAt));
      }
    }
    return next === Infinity ? null : next;
  }

  /**
   * What happens by itself at `at` (a time nextDeadline() gave), in words for the clock bar: the
   * retention period's end, days away, otherwise reads as an unexplained jump. Null when it is
   * none of the message deadlines the page shows (the engine's own housekeeping).
   */
  dueAt(at) {
    for (const c of this.consumers) {
      for (const h of c.held.values()) {
        const m = h.heartbeat && this.liveHold(h);
        if (m && heartbeatAt(m.visibleAt) === at) return `${c.name}'s heartbeat extends ${this.label(h.messageId)}`;
      }
    }
    // The shown queue first; a deadline on another queue names that queue (a message sitting in
    // the dead-letter queue has that queue's retention, not the source's).
    const names = [...this.queues.keys()].sort((a, b) => (b === this.selected) - (a === this.selected));
    for (const name of names) {
      let view;
      try {
        view = this.engine.peek(this.queues.get(name));
      } catch {
        continue;
      }
      const where = name === this.selected ? "" : ` in ${name}`;
      const retention = Number(view.queue.attributes.MessageRetentionPeriod) * 1000;
      for (const m of view.messages) {
        const whose = where ? `${this.labelOf(m)}${where}: its` : `${this.labelOf(m)}'s`;
        if (m.state === "in-flight" && m.visibleAt === at) return `${whose} visibility timeout ends`;
        if (m.state === "delayed" && m.delayedUntil === at) return `${whose} delay ends`;
        if (m.sentTimestamp !== undefined && m.sentTimestamp + retention === at && !REMOVED_STATES.has(m.state)) {
          return `${this.labelOf(m)}${where} is deleted: ${where ? `${name}'s` : "the queue's"} retention period (MessageRetentionPeriod ${retention / 1000} s) ends`;
        }
      }
    }
    return null;
  }

  isDeadLetterQueue(name) {
    const arn = this.attributes(name)?.QueueArn;
    if (!arn) return false;
    for (const other of this.queues.keys()) {
      const policy = this.attributes(other)?.RedrivePolicy;
      if (policy && JSON.parse(policy).deadLetterTargetArn === arn) return true;
    }
    return false;
  }

  attributes(name) {
    const url = this.queues.get(name);
    if (!url) return null;
    try {
      return this.engine.dispatch("GetQueueAttributes", { QueueUrl: url, AttributeNames: ["All"] }).Attributes || {};
    } catch {
      return null;
    }
  }

  /** The dead-letter queue named by `name`'s redrive policy, if it exists here. */
  deadLetterQueueOf(name) {
    const policy = this.attributes(name)?.RedrivePolicy;
    if (!policy) return null;
    const { deadLetterTargetArn, maxReceiveCount } = JSON.parse(policy);
    for (const other of this.queues.keys()) {
      if (this.attributes(other)?.QueueArn === deadLetterTargetArn) return { name: other, maxReceiveCount };
    }
    return { name: deadLetterTargetArn.split(":").pop(), maxReceiveCount, missing: true };
  }

  /** Which consumer holds the live handle of an in-flight message. */
  holderOf(message) {
    for (const c of this.consumers) {
      for (const h of c.held.values()) {
        if (h.messageId === message.messageId && h.receiptHandle === message.receiptHandle) return c.name;
      }
    }
    return null;
  }
}

export function isRemoved(state) {
  return REMOVED_STATES.has(state);
}

function sendParams(m) {
  const p = { MessageBody: m.body ?? "" };
  if (m.group) p.MessageGroupId = m.group;
  if (m.dedup) p.MessageDeduplicationId = m.dedup;
  if (m.delay !== undefined && m.delay !== "") p.DelaySeconds = Number(m.delay);
  return p;
}

/** Resolves after pending promise callbacks (long polls the clock just woke) have run. */
export function settle() {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
