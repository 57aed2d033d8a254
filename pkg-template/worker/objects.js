// The two Durable Object classes.
//
// WasqQueue: one partition of one queue (`<region>/<name>/<p>`), holding that queue's engine. It
// also holds "shadow" copies of the queue's dead-letter chain, so that a receive that exhausts
// maxReceiveCount moves the message inside one engine, atomically, with everything SQS preserves
// (message id, receive count, DeadLetterQueueSourceArn). A shadow is an outbox: right after the
// receive (and by alarm until it succeeds) the object transfers each dead-lettered message to the
// DLQ partition that owns its group (the engine's ImportMessages, idempotent by MessageId) and
// only then removes it from the shadow. DLQ receives never read shadows, so a group lives in one
// partition of the DLQ whatever queue it came from.
//
// WasqDirectory: one per deployment. Its engine holds every queue with its attributes, tags and
// policies but no messages, so CreateQueue, GetQueueUrl, ListQueues, attributes, tags and
// ListDeadLetterSourceQueues are answered by the real engine. After a change it succeeds at, it
// pushes the queue's settable attributes to the partitions (and shadows) before answering.

import { EngineHost, encodeHttp, decodeHttp, removal } from "./host.js";
import { partitionsFor, objectName, groupHash } from "./partition.js";
import { engineFacts } from "../src/facts.js";
import { MoveTasks } from "./move-tasks.js";
import * as wire from "./wire.js";

const RECORD = "wasq-edge:q:";
/** Per partition: the dead-letter queues it holds shadows of, `{ [name]: { region, partitions, context } }`. */
const TARGETS = "wasq-edge:dlq-targets";
/** A transfer that could not finish is retried by alarm this much later. */
const RETRY_MS = 2000;
/** Messages per export / import call (the engine's limit). */
const TRANSFER_BATCH = 100;
const decoder = new TextDecoder();

function fail(err) {
  const e = new Error(err.message);
  e.name = err.name;
  e.code = err.code;
  return e;
}

export class WasqQueue extends EngineHost {
  /** Shadows may hold messages to transfer: at first use (a restart may have cut one short), after a receive. */
  #outbox = true;
  #retryAt = undefined;
  #transfer = Promise.resolve();

  async internal(path, input, request) {
    if (path === "/ensure") return this.ensure(input);
    if (path === "/drop") return this.drop(input);
    if (path === "/ensure-chain") return this.ensureChain(input);
    if (path === "/import") return this.importMessages(input);
    if (path === "/export") return this.#internalOn(input, "ExportMessages", { MaxNumberOfMessages: input.max, VisibilityTimeout: input.visibility });
    if (path === "/remove") return this.#internalOn(input, "RemoveMessages", { Messages: input.messages });
    const out = await super.internal(path, input, request);
    if (this.#outbox) await this.afterRequest();
    return out;
  }

  extraDeadline() {
    return this.#retryAt;
  }

  async afterRequest(action) {
    if (action === "ReceiveMessage") this.#outbox = true;
    if (!this.#outbox) return;
    try {
      await this.transferDeadLetters();
    } catch (err) {
      // The request itself succeeded (a receive's messages are already in flight): its answer
      // must not be lost to a transfer problem, which the alarm retries.
      console.warn(`wasq edge: dead-letter transfer: ${err?.message ?? err}`);
    }
  }

  async alarm() {
    this.#outbox = true;
    this.#retryAt = undefined;
    await super.alarm();
    await this.transferDeadLetters();
  }

  /** Transfers run one at a time per object, in order: a group's messages arrive in the order they left. */
  transferDeadLetters() {
    const run = () => this.#transferAll();
    this.#transfer = this.#transfer.then(run, run);
    return this.#transfer;
  }

  async #transferAll() {
    if (!this.#outbox) return;
    this.#outbox = false;
    const targets = this.ctx.storage.kv.get(TARGETS) ?? {};
    let failed = false;
    for (const [name, target] of Object.entries(targets)) {
      try {
        await this.#transferQueue(name, target);
      } catch (err) {
        failed = true;
        console.warn(`wasq edge: dead-letter transfer to ${name} failed, retrying: ${err?.message ?? err}`);
      }
    }
    if (failed) {
      this.#outbox = true;
      this.#retryAt = Date.now() + RETRY_MS;
    }
    await this.syncAlarm();
  }

  /**
   * Move what the shadow of `name` holds to the partitions of `name` that own each message's
   * group (a standard message without a group: by its MessageId, so a retry goes to the same
   * partition and is recognised there). Removed here only once the partition acknowledged it.
   */
  async #transferQueue(name, { region, partitions, context }) {
    const [found] = await this.call([{ action: "GetQueueUrl", params: { QueueName: name } }], context);
    if (!found.ok) return; // the DLQ was deleted, and its shadow with it
    const QueueUrl = found.ok.QueueUrl;
    for (;;) {
      // No lock (VisibilityTimeout 0): no client receives from a shadow, and a failed transfer's
      // retry (RETRY_MS) must find its messages again rather than wait out a visibility timeout.
      const { Messages } = this.internalOp("ExportMessages", { QueueUrl, MaxNumberOfMessages: TRANSFER_BATCH, VisibilityTimeout: 0 }, context);
      if (!Messages.length) return;
      // Before the first import: an alarm that retries if this object stops mid-transfer.
      if (this.#retryAt === undefined) {
        this.#retryAt = Date.now() + RETRY_MS;
        await this.syncAlarm();
      }
      const byPartition = new Map();
      for (const m of Messages) {
        const p = groupHash(m.Extra?.group_id || m.MessageId) % partitions;
        if (!byPartition.has(p)) byPartition.set(p, []);
        byPartition.get(p).push(m);
      }
      const results = await Promise.allSettled(
        [...byPartition].map(([p, messages]) => this.#post(objectName(region, name, p), "/import", { context, name, messages })),
      );
      const done = [...byPartition.values()].filter((_, i) => results[i].status === "fulfilled").flat();
      if (done.length) {
        const { Removed } = this.internalOp("RemoveMessages", { QueueUrl, Messages: done.map(removal) }, context);
        // Never export the same messages again in this loop.
        if (Removed < done.length) throw new Error(`removed ${Removed} of ${done.length} transferred messages`);
      }
      const failure = results.find((r) => r.status === "rejected");
      if (failure) throw failure.reason;
      this.#retryAt = undefined;
    }
  }

  /** The DLQ side of a transfer: add the messages, keeping their identity; a repeat is skipped. */
  importMessages({ context, name, messages }) {
    return this.#internalOn({ context, name }, "ImportMessages", { Messages: messages });
  }

  /** An internal operation on the queue `name` here (its engine's error thrown as is). */
  async #internalOn({ context, name }, op, params) {
    const [found] = await this.call([{ action: "GetQueueUrl", params: { QueueName: name } }], context);
    if (found.error) throw fail(found.error);
    try {
      return this.internalOp(op, { QueueUrl: found.ok.QueueUrl, ...params }, context);
    } finally {
      await this.syncAlarm();
    }
  }

  async #post(objName, path, input) {
    const ns = this.env.WASQ_QUEUE;
    const res = await ns.get(ns.idFromName(objName)).fetch(`http://wasq${path}`, { method: "POST", body: JSON.stringify(input) });
    if (!res.ok) throw new Error(`${objName}${path}: ${res.status} ${await res.text()}`);
    return res.json();
  }

  /** Create the queue here with these attributes, or bring an existing one up to them. */
  async ensure({ context, name, attributes }) {
    const [found] = await this.call([{ action: "GetQueueUrl", params: { QueueName: name } }], context);
    const calls = found.ok
      ? [{ action: "SetQueueAttributes", params: { QueueUrl: found.ok.QueueUrl, Attributes: withoutType(attributes) } }]
      : [{ action: "CreateQueue", params: { QueueName: name, Attributes: attributes } }];
    const [res] = await this.call(calls, context);
    if (res.error) throw fail(res.error);
    return { ok: true };
  }

  /**
   * A queue and the shadows of its dead-letter chain, in two passes: every queue first exists
   * (without policies), then each gets its RedrivePolicy, whose target the engine requires to
   * exist already; "" removes one. Cycles (A → B → A) need both passes.
   */
  async ensureChain({ context, queues, targets }) {
    // Where this partition's dead-lettered messages go: the partitions of each queue of its chain.
    // Merged, not replaced: a shadow no longer in the chain (policy removed or re-pointed) may
    // still hold messages on their way; a deleted DLQ's entry is skipped (its shadow is gone).
    if (targets) {
      const known = this.ctx.storage.kv.get(TARGETS) ?? {};
      for (const t of targets) known[t.name] = { region: t.region, partitions: t.partitions, context };
      this.ctx.storage.kv.put(TARGETS, known);
    }
    for (const { name, attributes } of queues) {
      const { RedrivePolicy, ...rest } = attributes;
      await this.ensure({ context, name, attributes: rest });
    }
    for (const { name, attributes } of queues) {
      const [found] = await this.call([{ action: "GetQueueUrl", params: { QueueName: name } }], context);
      const params = { QueueUrl: found.ok?.QueueUrl, Attributes: { RedrivePolicy: attributes.RedrivePolicy ?? "" } };
      const [res] = await this.call([{ action: "SetQueueAttributes", params }], context);
      if (res.error) throw fail(res.error);
    }
    return { ok: true };
  }

  async drop({ context, name, purge }) {
    const [found] = await this.call([{ action: "GetQueueUrl", params: { QueueName: name } }], context);
    if (!found.ok) return { ok: true };
    const action = purge ? "PurgeQueue" : "DeleteQueue";
    const [res] = await this.call([{ action, params: { QueueUrl: found.ok.QueueUrl } }], context);
    // A purge inside the 60 s window was already applied to this copy.
    if (res.error && res.error.name !== "PurgeQueueInProgress") throw fail(res.error);
    return { ok: true };
  }
}

function withoutType(attributes) {
  const { FifoQueue, ...rest } = attributes;
  return rest;
}

export class WasqDirectory extends EngineHost {
  #moveTasks = new MoveTasks(this);

  /** The queue's directory record `{ partitions, locations[] }`, or null. */
  record(region, name) {
    return this.#record(region, name);
  }

  /** POST `input` to an internal endpoint of a queue object. */
  post(objName, path, input) {
    return this.#post(objName, path, input);
  }

  extraDeadline() {
    return this.#moveTasks.nextDeadline();
  }

  async alarm() {
    await super.alarm();
    await this.#moveTasks.run();
  }

  #record(region, name) {
    return this.ctx.storage.kv.get(`${RECORD}${region}/${name}`) ?? null;
  }

  #save(region, name, record) {
    const key = `${RECORD}${region}/${name}`;
    if (record === null) this.ctx.storage.kv.delete(key);
    else this.ctx.storage.kv.put(key, record);
  }

  #stub(name) {
    const ns = this.env.WASQ_QUEUE;
    return ns.get(ns.idFromName(name));
  }

  async #post(objName, path, input) {
    const res = await this.#stub(objName).fetch(`http://wasq${path}`, { method: "POST", body: JSON.stringify(input) });
    if (!res.ok) throw new Error(`wasq edge: ${objName}${path} failed: ${await res.text()}`);
    return res.json();
  }

  async #one(context, action, params) {
    const [res] = await this.call([{ action, params }], context);
    if (res.error) throw fail(res.error);
    return res.ok;
  }

  async internal(path, input, request) {
    if (path === "/meta") return this.#record(input.region, input.name);
    if (path === "/sync") {
      await this.#sync(input.context, input.region, input.name);
      return this.#record(input.region, input.name);
    }
    return super.internal(path, input, request);
  }

  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname !== "/control") return super.fetch(request);
    const { action, name, region, context } = JSON.parse(request.headers.get("x-wasq-route"));
    const parsed = await request.json();
    const before = name ? this.#record(region, name) : null;
    const res = await this.parsed(parsed, request.signal);
    if (engineFacts().moveActions.has(action)) return encodeHttp(await this.#moveTasks.answer(action, wire.read(parsed), res, context, region));
    if (res.status === 200 && name) {
      if (action === "CreateQueue" || action === "SetQueueAttributes") await this.#sync(context, region, name);
      else if (action === "DeleteQueue") await this.#delete(context, region, name, before);
      else if (action === "PurgeQueue" && before) {
        await Promise.all(before.locations.map((o) => this.#post(o, "/drop", { context, name, purge: true })));
      }
    }
    return encodeHttp(res);
  }

  /** The queue's settable attributes as the directory's engine holds them, or null if it has none. */
  async #attributes(context, name) {
    const [found] = await this.call([{ action: "GetQueueUrl", params: { QueueName: name } }], context);
    if (!found.ok) return null;
    const url = found.ok.QueueUrl;
    const all = (await this.#one(context, "GetQueueAttributes", { QueueUrl: url, AttributeNames: ["All"] })).Attributes ?? {};
    const tags = (await this.#one(context, "ListQueueTags", { QueueUrl: url })).Tags ?? {};
    const { settable: names } = engineFacts();
    const settable = Object.fromEntries(Object.entries(all).filter(([k]) => names.has(k)));
    return { url, all, tags, settable };
  }

  /**
   * Make every copy of the queue match the directory: its partitions, each holding shadows of the
   * queue's whole dead-letter chain (so a message that exhausts maxReceiveCount in a shadow DLQ
   * moves on to the next shadow inside the same engine, as on one engine), its own shadows in
   * other queues' partitions, and the chains of every queue upstream of it, whose shadows of it
   * may need its new RedrivePolicy.
   */
  async #sync(context, region, name, seen = new Set()) {
    seen.add(name);
    const q = await this.#attributes(context, name);
    if (q === null) return;
    let record = this.#record(region, name);
    if (record === null) {
      // The partition count is fixed at creation; later env or tag changes never move messages.
      const n = partitionsFor(q.all, q.tags, this.env);
      record = { partitions: n, locations: Array.from({ length: n }, (_, p) => objectName(region, name, p)) };
      this.#save(region, name, record);
    }
    const own = record.locations.slice(0, record.partitions);
    const chain = [{ name, attributes: q.settable }];
    for (let at = q; ; ) {
      const next = dlqNameOf(at.settable);
      if (next === null || chain.some((m) => m.name === next)) break;
      const dlq = await this.#attributes(context, next);
      if (dlq === null || this.#record(region, next) === null) break;
      chain.push({ name: next, attributes: dlq.settable });
      at = dlq;
    }
    const names = new Set(chain.map((m) => m.name));
    const queues = chain.map((m) => {
      const target = dlqNameOf(m.attributes);
      // A policy whose target has no copy in this engine would be refused there: it is dropped
      // (the directory's engine already refuses a DLQ that does not exist, so this is only a
      // DLQ deleted after the fact).
      return { name: m.name, attributes: { ...m.attributes, RedrivePolicy: target !== null && names.has(target) ? m.attributes.RedrivePolicy : "" } };
    });
    const targets = chain.slice(1).map((m) => ({ name: m.name, region, partitions: this.#record(region, m.name).partitions }));
    await Promise.all(own.map((o) => this.#post(o, "/ensure-chain", { context, queues, targets })));
    for (const m of chain.slice(1)) {
      const dlqRecord = this.#record(region, m.name);
      const added = own.filter((o) => !dlqRecord.locations.includes(o));
      if (added.length) this.#save(region, m.name, { ...dlqRecord, locations: [...dlqRecord.locations, ...added] });
    }
    // Shadows of this queue in other queues' partitions: its attributes, policy left to their chains.
    const shadows = record.locations.slice(record.partitions);
    const shadow = shadowAttributes(q.settable);
    await Promise.all(shadows.map((o) => this.#post(o, "/ensure", { context, name, attributes: shadow })));
    const sources = await this.#one(context, "ListDeadLetterSourceQueues", { QueueUrl: q.url, MaxResults: 1000 });
    for (const url of sources.queueUrls ?? []) {
      const source = url.split("/").pop();
      if (!seen.has(source)) await this.#sync(context, region, source, seen);
    }
  }

  async #delete(context, region, name, record) {
    if (!record) return;
    await Promise.all(record.locations.map((o) => this.#post(o, "/drop", { context, name })));
    this.#save(region, name, null);
  }
}

/** A shadow's attributes without its RedrivePolicy, which its source's chain sets (see #sync). */
function shadowAttributes(settable) {
  const { RedrivePolicy, ...rest } = settable;
  return rest;
}

/** The name of the queue a RedrivePolicy sends to, or null. */
function dlqNameOf(settable) {
  const target = settable.RedrivePolicy ? safeJson(settable.RedrivePolicy)?.deadLetterTargetArn : undefined;
  return typeof target === "string" && target !== "" ? target.split(":").pop() : null;
}

function safeJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export { decodeHttp, decoder };
