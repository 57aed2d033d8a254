// Message-move tasks (DLQ redrive, spec §11.3–11.4) across partition objects, driven by the
// directory. The directory's engine holds the queues but no messages, so a task it ran itself
// would find nothing to move; instead the directory keeps the task here (in its own storage) and
// moves messages between the objects with the engine's internal transfer operations: export the
// oldest visible messages of a DLQ partition (FIFO: the head of each group that has nothing in
// flight), which the export holds in flight for EXPORT_LOCK_S as SQS's redrive holds what it
// receives (a DLQ consumer cannot get them meanwhile; not counted as a receive, so a DLQ that is
// itself in a chain does not dead-letter onward; back in view at the deadline if the move fails),
// import each as a new message (new id, receive count 0, no DeadLetterQueueSourceArn, as SQS
// redrives) into the destination partition that owns its group, then remove the originals.
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
// A moved message's new id is derived from the task and its old id, and imports are idempotent by
// id, so a restart between an import and the removal does not move a message twice: the next
// step exports it again and its import is skipped (unless the copy was already received and
// deleted from a standard destination in between; a FIFO destination remembers it 5 minutes).

import { removal } from "./host.js";
import { groupHash } from "./partition.js";
import * as wire from "./wire.js";

const TASK = "wasq-edge:task:";
const NEXT = "wasq-edge:task-next";
/** The rate when the caller names none ("system-chosen" on AWS; the engine's own default). */
const DEFAULT_RATE = 500;
const STEP_MS = 1000;
/**
 * How long an export hides its messages (s): far beyond one batch's object calls (milliseconds),
 * and short, because a batch cut off by a restart waits this long before the task retries it.
 */
const EXPORT_LOCK_S = 10;
const NON_EXISTENT = "AWS.SimpleQueueService.NonExistentQueue";

/** AWS's handle: base64 of `{"taskId": <UUID>, "sourceArn": …}` (recorded, issue #33 item 3). */
function handleOf(task) {
  return btoa(JSON.stringify({ taskId: taskIdOf(task), sourceArn: task.sourceArn }));
}

/** Tasks stored before task ids were UUIDs keep their number. */
function taskIdOf(task) {
  return task.taskId ?? String(task.id);
}

/**
 * The taskId of the directory engine's own handle for this start: a UUID derived from the
 * engine's seed, so the Worker's ids are AWS-shaped without drawing randomness of its own.
 */
function engineTaskId(res) {
  const m = /"TaskHandle":"([^"]+)"|<TaskHandle>([^<]+)<\/TaskHandle>/.exec(wire.text(res));
  try {
    return String(JSON.parse(atob(m[1] ?? m[2])).taskId);
  } catch {
    return undefined;
  }
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
      taskId: engineTaskId(res) ?? String(id),
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
    let taskId;
    let sourceArn;
    try {
      const decoded = JSON.parse(atob(handle));
      taskId = String(decoded.taskId);
      sourceArn = decoded.sourceArn;
    } catch {
      return res; // the engine already judged it well-formed; never reached in practice
    }
    const task = [...this.#all().values()].find((t) => taskIdOf(t) === taskId && t.sourceArn === sourceArn);
    if (!task) {
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
      if (a.QueueArn === arn) out = { name, url, record, fifo: a.FifoQueue === "true" };
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
    // The DLQ's own partitions; its shadows in its sources' partitions only pass messages on to them.
    const locations = record.locations.slice(0, record.partitions);
    const start = this.#spreadAt++ % locations.length;
    for (let i = 0; i < locations.length && budget > 0 && task.status === "RUNNING"; i++) {
      const loc = locations[(start + i) % locations.length];
      // A location is drained before the next is asked: each receive takes what is still allowed.
      for (;;) {
        if (budget <= 0 || task.status !== "RUNNING") break;
        const n = await this.#moveBatch(task, loc, Math.min(10, budget), destinations);
        budget -= n.moved;
        task.moved += n.moved;
        this.#save(task);
        if (n.failure) {
          this.#finish(task, "FAILED", n.failure);
          this.#save(task);
          return;
        }
        // Nothing left here, or part of the batch could not move now: the next step retries.
        if (n.received === 0 || n.moved < n.received) break;
      }
    }
    if (task.status === "CANCELLING") {
      this.#finish(task, "CANCELLED");
    } else if (task.status === "RUNNING") {
      const left = (await this.#countAll(record.locations, sourceUrl, task.context)).reduce((a, b) => a + b, 0);
      // Messages a failed batch left exported are invisible until their lock ends: not done yet.
      const locked = Date.now() < (task.lockedUntil ?? 0);
      if (task.moved >= task.toMove || (left === 0 && !locked)) this.#finish(task, "COMPLETED");
    }
    this.#save(task);
  }

  /** Export up to `max` from one DLQ partition, import them where they go, remove what was imported. */
  async #moveBatch(task, loc, max, destinations) {
    const context = task.context;
    // Saved before the export, so that a restart mid-batch still knows messages may be locked.
    const lockedBefore = task.lockedUntil ?? 0;
    task.lockedUntil = Date.now() + EXPORT_LOCK_S * 1000;
    this.#save(task);
    const { Messages: messages } = await this.host.post(loc, "/export", { context, name: task.sourceName, max, visibility: EXPORT_LOCK_S });
    if (!messages.length) {
      task.lockedUntil = lockedBefore;
      return { received: 0, moved: 0 };
    }

    // Where each message goes: the task's destination, or the queue it was dead-lettered from,
    // in the partition of its group (as a client's send is placed; no group: by its new id, so
    // a retry lands where the first attempt did).
    const byTarget = new Map();
    const now = Date.now();
    for (const m of messages) {
      const arn = task.destinationArn ?? m.Extra?.dead_letter_source_arn;
      const dest = arn ? await this.#destination(task, arn, destinations) : null;
      if (!dest) return { received: messages.length, moved: 0, failure: NON_EXISTENT };
      const moved = redriven(m, await movedId(task, m.MessageId), dest.fifo, now);
      const object = dest.record.locations[groupHash(moved.Extra?.group_id || moved.MessageId) % dest.record.partitions];
      const key = `${dest.name}\n${object}`;
      if (!byTarget.has(key)) byTarget.set(key, { dest, object, list: [] });
      byTarget.get(key).list.push([removal(m), moved]);
    }

    const done = [];
    let failure = null;
    for (const { dest, object, list } of byTarget.values()) {
      try {
        await this.host.post(object, "/import", { context, name: dest.name, messages: list.map(([, moved]) => moved) });
        done.push(...list.map(([exported]) => exported));
      } catch (err) {
        // The destination went away: the task fails, the messages stay. Anything else (an
        // object restarting) is retried by the next step.
        if (/QueueDoesNotExist|NonExistentQueue|queue does not exist/i.test(`${err?.name} ${err?.message}`)) failure ??= NON_EXISTENT;
      }
    }
    if (done.length) await this.host.post(loc, "/remove", { context, name: task.sourceName, messages: done });
    // All removed: this batch leaves nothing locked.
    if (done.length === messages.length) task.lockedUntil = lockedBefore;
    return { received: messages.length, moved: done.length, failure };
  }
}

/**
 * A moved message as SQS redrives it (spec §11.3): a new id, enqueue time and receive count, no
 * DeadLetterQueueSourceArn; body, attributes, group, deduplication id, trace header and sender
 * kept (a FIFO destination needs a deduplication id: the new id, as the engine's own tasks do).
 */
function redriven(m, id, fifo, now) {
  const { dead_letter_source_arn: _, ...extra } = m.Extra ?? {};
  if (fifo && extra.deduplication_id === undefined) extra.deduplication_id = id;
  const out = { MessageId: id, Body: m.Body, SentTimestamp: now, ReceiveCount: 0, FirstReceiveTimestamp: 0 };
  if (m.MessageAttributes) out.MessageAttributes = m.MessageAttributes;
  if (Object.keys(extra).length) out.Extra = extra;
  return out;
}

/** The moved copy's MessageId: a UUID from the task and the old id, the same on every retry. */
async function movedId(task, id) {
  const text = new TextEncoder().encode(`${task.sourceArn}\n${task.id}\n${id}`);
  const b = new Uint8Array(await crypto.subtle.digest("SHA-256", text)).slice(0, 16);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
