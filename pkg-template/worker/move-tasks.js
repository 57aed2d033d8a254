// Message-move tasks (DLQ redrive, spec §11.3–11.4) across partition objects, driven by the
// directory. The directory's engine holds the queues but no messages, so a task it ran itself
// would find nothing to move; instead the directory keeps the task here (in its own storage) and
// moves messages the way SQS describes its own redrive: receive from each location of the
// dead-letter queue (its partitions and the shadow copies in its sources' partitions), send to
// the destination's partition for the message's group (as a client's send is placed), then delete
// from the source location.
//
// Exactness: the request is first run through the directory's engine, which validates it exactly
// (missing or malformed parameters, unknown source or destination, a source that is no DLQ, the
// rate's range, a malformed handle) and whose response is the template of a success. The engine's
// own task there completes at once having moved nothing and is never shown; what this file
// decides itself is what only it knows: a task already running, which tasks exist, their
// progress, and cancelling.
//
// Durability: a task and its counters live in the directory's storage, written after every
// batch; the directory's alarm wakes it each second while it runs, so a task survives restarts.
// A restart between a send and its delete can move a message twice (at least once, like any
// SQS consumer); FIFO sends carry the message's deduplication id, so a repeat within the 5-minute
// window is dropped by the destination.

import { partitionOf } from "./partition.js";
import * as wire from "./wire.js";

const TASK = "wasq-edge:task:";
const NEXT = "wasq-edge:task-next";
/** The rate when the caller names none ("system-chosen" on AWS; the engine's own default). */
const DEFAULT_RATE = 500;
const STEP_MS = 1000;
/** How long the task holds a message between its receive and its delete. */
const HOLD_SECONDS = 30;
const NON_EXISTENT = "AWS.SimpleQueueService.NonExistentQueue";
export const MOVE_ACTIONS = new Set(["StartMessageMoveTask", "ListMessageMoveTasks", "CancelMessageMoveTask"]);

function handleOf(task) {
  return btoa(JSON.stringify({ sourceArn: task.sourceArn, taskId: String(task.id) }));
}

function nameOfArn(arn) {
  return String(arn).split(":").pop();
}

export class MoveTasks {
  #tasks = null;
  #stepping = false;
  #spreadAt = 0;

  /**
   * @param host the WasqDirectory: `call(calls, context)`, `record(region, name)`, `post(object, path, input)`,
   *   `ctx.storage.kv`, `syncAlarm()`
   */
  constructor(host) {
    this.host = host;
  }

  get #kv() {
    return this.host.ctx.storage.kv;
  }

  #all() {
    if (this.#tasks === null) {
      this.#tasks = new Map();
      for (const [, task] of this.#kv.list({ prefix: TASK })) this.#tasks.set(task.id, task);
    }
    return this.#tasks;
  }

  #save(task) {
    this.#kv.put(TASK + String(task.id).padStart(12, "0"), task);
  }

  /** When a running task next moves messages (epoch ms), or undefined. */
  nextDeadline() {
    if (this.#stepping) return undefined; // run() re-arms when it finishes
    let next;
    for (const t of this.#all().values()) {
      if ((t.status !== "RUNNING" && t.status !== "CANCELLING") || !Number.isFinite(t.steppedTo)) continue;
      const at = t.status === "CANCELLING" ? Date.now() : t.steppedTo + STEP_MS;
      if (next === undefined || at < next) next = at;
    }
    return next;
  }

  /** Answer one move-task request; `res` is the directory engine's answer to it. */
  async answer(action, p, res, context, region) {
    if (res.status !== 200 && !(action === "CancelMessageMoveTask" && this.#taskLookupError(res))) return res;
    if (action === "StartMessageMoveTask") return this.#start(p, res, context, region);
    if (action === "ListMessageMoveTasks") return this.#list(p, res);
    return this.#cancel(p, res);
  }

  /** The engine's refusals that only reflect its own (always finished) tasks. */
  #taskLookupError(res) {
    const code = wire.errorCode(res);
    const body = wire.text(res);
    return (code === "ResourceNotFoundException" && body.includes("Task does not exist.")) ||
      (code === "InvalidParameterValue" && body.includes("Only active tasks can be cancelled."));
  }

  async #start(p, res, context, region) {
    const sourceArn = wire.field(p, "SourceArn");
    const tasks = this.#all();
    for (const t of tasks.values()) {
      if (t.sourceArn === sourceArn && (t.status === "RUNNING" || t.status === "CANCELLING")) {
        return wire.errorResponse(p.json, {
          type: "com.amazon.coral.service#InvalidParameterValueException",
          code: "InvalidParameterValue",
          status: 400,
          message: "There is already a task running. Only one active task is allowed for a source queue arn at a given time.",
        });
      }
    }
    const sourceName = nameOfArn(sourceArn);
    // The task's later calls run without a request: keep who and where, not the trace header.
    const { traceHeader, ...callContext } = context;
    const id = Number(this.#kv.get(NEXT) ?? 1);
    this.#kv.put(NEXT, id + 1);
    const rate = wire.field(p, "MaxNumberOfMessagesPerSecond");
    const destinationArn = wire.field(p, "DestinationArn");
    const now = Date.now();
    const task = {
      id,
      region,
      context: callContext,
      sourceArn,
      sourceName,
      destinationArn: destinationArn ?? null,
      rate: rate === undefined ? null : Number(rate),
      status: "RUNNING",
      moved: 0,
      toMove: 0,
      startedAt: now,
      failureReason: null,
      // Not due until counted (below); then the first batch moves at once and later ones once a
      // second, as the engine's tasks do.
      steppedTo: Infinity,
    };
    // Registered before the first await, so a second Start arriving meanwhile (the object takes
    // other requests while this one waits on the partitions) sees it running. Stored only once
    // counted: a restart in between loses the reservation with the unanswered request.
    tasks.set(id, task);
    const record = this.host.record(region, sourceName);
    const sourceUrl = await this.#queueUrl(callContext, sourceName);
    if (record && sourceUrl) {
      const counts = await this.#countAll(record.locations, sourceUrl, callContext);
      task.toMove = counts.reduce((a, b) => a + b, 0);
    }
    task.steppedTo = now - STEP_MS;
    this.#save(task);
    await this.host.syncAlarm();
    return wire.withJsonOrXmlResult(p.json, res, "StartMessageMoveTask", { TaskHandle: handleOf(task) });
  }

  #entry(t) {
    const e = {};
    if (t.status === "RUNNING") e.TaskHandle = handleOf(t);
    e.Status = t.status;
    e.SourceArn = t.sourceArn;
    if (t.destinationArn !== null) e.DestinationArn = t.destinationArn;
    if (t.rate !== null) e.MaxNumberOfMessagesPerSecond = t.rate;
    e.ApproximateNumberOfMessagesMoved = t.moved;
    e.ApproximateNumberOfMessagesToMove = t.toMove;
    if (t.failureReason !== null) e.FailureReason = t.failureReason;
    e.StartedTimestamp = t.startedAt;
    return e;
  }

  #list(p, res) {
    const sourceArn = wire.field(p, "SourceArn");
    const max = Number(wire.field(p, "MaxResults") ?? 1);
    const results = [...this.#all().values()]
      .filter((t) => t.sourceArn === sourceArn)
      .sort((a, b) => b.id - a.id)
      .slice(0, max)
      .map((t) => this.#entry(t));
    return wire.withJsonOrXmlResult(p.json, res, "ListMessageMoveTasks", results.length ? { Results: results } : {});
  }

  #cancel(p, res) {
    const handle = wire.field(p, "TaskHandle");
    let id;
    let sourceArn;
    try {
      const decoded = JSON.parse(atob(handle));
      id = Number(decoded.taskId);
      sourceArn = decoded.sourceArn;
    } catch {
      return res; // the engine already judged it well-formed; never reached in practice
    }
    const task = this.#all().get(id);
    if (!task || task.sourceArn !== sourceArn) {
      return wire.errorResponse(p.json, {
        type: "com.amazonaws.sqs#ResourceNotFoundException",
        code: "ResourceNotFoundException",
        status: 404,
        message: "Task does not exist.",
      });
    }
    if (task.status !== "RUNNING") {
      return wire.errorResponse(p.json, {
        type: "com.amazon.coral.service#InvalidParameterValueException",
        code: "InvalidParameterValue",
        status: 400,
        message: `Value ${handle} for parameter TaskHandle is invalid. Reason: Only active tasks can be cancelled.`,
      });
    }
    const moved = task.moved;
    // A batch in flight finishes first (as on AWS, where moving continues briefly after the call).
    task.status = this.#stepping ? "CANCELLING" : "CANCELLED";
    this.#save(task);
    return wire.successResponse(p.json, "CancelMessageMoveTask", { ApproximateNumberOfMessagesMoved: moved });
  }

  // ---- moving ----

  /** Run every step that is due; called from the directory's alarm. */
  async run() {
    if (this.#stepping) return;
    this.#stepping = true;
    try {
      for (const task of this.#all().values()) {
        if (task.status === "CANCELLING") {
          task.status = "CANCELLED";
          this.#save(task);
        }
        // One step per wake-up, stamped now: a late alarm (an evicted or busy object) must not
        // catch up with back-to-back steps, which would exceed the rate the caller asked for.
        if (task.status === "RUNNING" && task.steppedTo + STEP_MS <= Date.now()) {
          await this.#step(task, Date.now());
        }
      }
    } finally {
      this.#stepping = false;
      await this.host.syncAlarm();
    }
  }

  async #queueUrl(context, name) {
    const [found] = await this.host.call([{ action: "GetQueueUrl", params: { QueueName: name } }], context);
    return found.ok?.QueueUrl ?? null;
  }

  /** The destination queue an ARN names: `{ url, record, fifo }`, or null when it does not exist. */
  async #destination(task, arn, cache) {
    if (cache.has(arn)) return cache.get(arn);
    let out = null;
    const name = nameOfArn(arn);
    const url = await this.#queueUrl(task.context, name);
    const record = url ? this.host.record(task.region, name) : null;
    if (url && record) {
      const [attrs] = await this.host.call(
        [{ action: "GetQueueAttributes", params: { QueueUrl: url, AttributeNames: ["QueueArn", "FifoQueue"] } }],
        task.context,
      );
      const a = attrs.ok?.Attributes ?? {};
      if (a.QueueArn === arn) out = { url, record, fifo: a.FifoQueue === "true" };
    }
    cache.set(arn, out);
    return out;
  }

  async #countAll(locations, url, context) {
    const answers = await Promise.all(
      locations.map((o) =>
        this.host.post(o, "/call", {
          context,
          calls: [{ action: "GetQueueAttributes", params: { QueueUrl: url, AttributeNames: ["ApproximateNumberOfMessages"] } }],
        }),
      ),
    );
    return answers.map(({ results }) => Number(results[0]?.ok?.Attributes?.ApproximateNumberOfMessages ?? 0));
  }

  #finish(task, status, reason = null) {
    task.status = status;
    task.failureReason = reason;
  }

  /** One second's worth of moving: at most the rate, and never past the count fixed at start. */
  async #step(task, at) {
    task.steppedTo = at;
    const record = this.host.record(task.region, task.sourceName);
    const sourceUrl = record ? await this.#queueUrl(task.context, task.sourceName) : null;
    if (!record || !sourceUrl) {
      this.#finish(task, "FAILED", NON_EXISTENT);
      this.#save(task);
      return;
    }
    let budget = Math.min(task.rate ?? DEFAULT_RATE, task.toMove - task.moved);
    const destinations = new Map();
    const locations = record.locations;
    const start = this.#spreadAt++ % locations.length;
    for (let i = 0; i < locations.length && budget > 0 && task.status === "RUNNING"; i++) {
      const loc = locations[(start + i) % locations.length];
      // A location is drained before the next is asked: each receive takes what is still allowed.
      for (;;) {
        if (budget <= 0 || task.status !== "RUNNING") break;
        const n = await this.#moveBatch(task, loc, sourceUrl, Math.min(10, budget), destinations);
        budget -= n.moved;
        task.moved += n.moved;
        this.#save(task);
        if (n.failure) {
          this.#finish(task, "FAILED", n.failure);
          this.#save(task);
          return;
        }
        if (n.received === 0) break;
      }
    }
    if (task.status === "CANCELLING") {
      this.#finish(task, "CANCELLED");
    } else if (task.status === "RUNNING") {
      const left = (await this.#countAll(locations, sourceUrl, task.context)).reduce((a, b) => a + b, 0);
      if (task.moved >= task.toMove || left === 0) this.#finish(task, "COMPLETED");
    }
    this.#save(task);
  }

  /** Receive up to `max` from one location, send them on, delete what was sent. */
  async #moveBatch(task, loc, sourceUrl, max, destinations) {
    const context = task.context;
    const { results } = await this.host.post(loc, "/call", {
      context,
      calls: [{
        action: "ReceiveMessage",
        params: {
          QueueUrl: sourceUrl,
          MaxNumberOfMessages: max,
          VisibilityTimeout: HOLD_SECONDS,
          WaitTimeSeconds: 0,
          AttributeNames: ["All"],
          MessageSystemAttributeNames: ["All"],
          MessageAttributeNames: ["All"],
        },
      }],
    });
    const messages = results[0]?.ok?.Messages ?? [];
    if (!messages.length) return { received: 0, moved: 0 };
    const release = (list) =>
      list.length &&
      this.host.post(loc, "/call", {
        context,
        calls: [{
          action: "ChangeMessageVisibilityBatch",
          params: { QueueUrl: sourceUrl, Entries: list.map((m, i) => ({ Id: `r${i}`, ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 0 })) },
        }],
      });

    // Where each message goes: the task's destination, or the queue it was dead-lettered from.
    const byTarget = new Map();
    for (const m of messages) {
      const arn = task.destinationArn ?? m.Attributes?.DeadLetterQueueSourceArn;
      const dest = arn ? await this.#destination(task, arn, destinations) : null;
      if (!dest) {
        await release(messages);
        return { received: messages.length, moved: 0, failure: NON_EXISTENT };
      }
      const group = m.Attributes?.MessageGroupId;
      const p = partitionOf(group, dest.record.partitions, () => this.#spreadAt++);
      const key = `${dest.url}\n${dest.record.locations[p]}`;
      if (!byTarget.has(key)) byTarget.set(key, { dest, object: dest.record.locations[p], list: [] });
      byTarget.get(key).list.push(m);
    }

    const sent = [];
    let failure = null;
    const unsent = [];
    for (const { dest, object, list } of byTarget.values()) {
      const entries = list.map((m, i) => sendEntry(m, i, dest.fifo));
      const { results: out } = await this.host.post(object, "/call", {
        context,
        calls: [{ action: "SendMessageBatch", params: { QueueUrl: dest.url, Entries: entries } }],
      });
      const r = out[0];
      if (r.error) {
        failure ??= r.error.code;
        unsent.push(...list);
        continue;
      }
      const ok = new Set((r.ok.Successful ?? []).map((e) => e.Id));
      list.forEach((m, i) => (ok.has(`m${i}`) ? sent : unsent).push(m));
      for (const f of r.ok.Failed ?? []) failure ??= f.Code;
    }
    if (sent.length) {
      await this.host.post(loc, "/call", {
        context,
        calls: [{
          action: "DeleteMessageBatch",
          params: { QueueUrl: sourceUrl, Entries: sent.map((m, i) => ({ Id: `d${i}`, ReceiptHandle: m.ReceiptHandle })) },
        }],
      });
    }
    await release(unsent);
    return { received: messages.length, moved: sent.length, failure };
  }
}

/** A moved message as a new message (spec §11.3: new id, enqueue time and receive count). */
function sendEntry(m, i, fifo) {
  const e = { Id: `m${i}`, MessageBody: m.Body };
  const attrs = {};
  for (const [name, v] of Object.entries(m.MessageAttributes ?? {})) {
    attrs[name] = v.BinaryValue !== undefined
      ? { DataType: v.DataType, BinaryValue: v.BinaryValue }
      : { DataType: v.DataType, StringValue: v.StringValue };
  }
  if (Object.keys(attrs).length) e.MessageAttributes = attrs;
  const sys = m.Attributes ?? {};
  if (sys.AWSTraceHeader !== undefined) {
    e.MessageSystemAttributes = { AWSTraceHeader: { DataType: "String", StringValue: sys.AWSTraceHeader } };
  }
  if (sys.MessageGroupId !== undefined) e.MessageGroupId = sys.MessageGroupId;
  if (fifo) e.MessageDeduplicationId = sys.MessageDeduplicationId ?? m.MessageId;
  return e;
}
