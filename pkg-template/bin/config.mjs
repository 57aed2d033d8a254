// `wasq serve --config FILE`: queues declared up front, as ElasticMQ's `queues { … }` block or a
// LocalStack init script would make them, applied before the server answers anything.
//
// The file is checked whole before the real engine is touched: its shape here, then everything
// the engine itself would refuse (an attribute's name or range, a FIFO attribute on a standard
// queue, a redrive policy the engine will not take) by applying it to a scratch in-memory
// engine. Only a file that passed both is applied to the real one, so a bad file leaves the
// server unstarted and its data as it was, never half-configured.
//
// Applying is idempotent: a declared queue that does not exist is created; one that exists has
// each declared attribute that differs set (as SetQueueAttributes would) and each declared tag
// that differs or is missing added (TagQueue). Nothing is deleted: not a queue the file no
// longer names, not an attribute or tag it no longer declares.

import { readFileSync } from "node:fs";
import { Engine } from "../entry/node.js";

/** The attributes CreateQueue takes; the engine checks their values. */
export const QUEUE_ATTRIBUTES = [
  "DelaySeconds",
  "MaximumMessageSize",
  "MessageRetentionPeriod",
  "Policy",
  "ReceiveMessageWaitTimeSeconds",
  "VisibilityTimeout",
  "RedrivePolicy",
  "RedriveAllowPolicy",
  "KmsMasterKeyId",
  "KmsDataKeyReusePeriodSeconds",
  "SqsManagedSseEnabled",
  "FifoQueue",
  "ContentBasedDeduplication",
  "DeduplicationScope",
  "FifoThroughputLimit",
];

/** Attributes whose value is a JSON document: compared as documents, not as text. */
const JSON_ATTRIBUTES = new Set(["Policy", "RedrivePolicy", "RedriveAllowPolicy"]);
const QUEUE_KEYS = new Set(["name", "attributes", "tags", "deadLetterQueue"]);
const TOP_KEYS = new Set(["$schema", "queues"]);

/** A file that cannot be applied. The message names the file, the queue and the problem. */
export class ConfigError extends Error {
  constructor(message) {
    super(message);
    this.name = "ConfigError";
  }
}

const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);

/** `"orders-dlq"` or an ARN: the name (the last `:` part of an ARN). */
function nameOfTarget(target) {
  return target.startsWith("arn:") ? target.slice(target.lastIndexOf(":") + 1) : target;
}

/**
 * Read and check the file's shape. Returns `{ queues: [{ name, attributes, tags, dlq }] }` in
 * dependency order (every dead-letter queue before the queues that name it), attributes as the
 * strings SQS takes and queue names in redrive policies not yet turned into ARNs (`dlq` is the
 * dead-letter queue's name, `allowed` the names a RedriveAllowPolicy lists).
 */
export function readConfig(file) {
  let text;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new ConfigError(`${file}: cannot read it: ${err.message}`);
  }
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`${file}: not valid JSON: ${err.message}`);
  }
  return checkConfig(file, doc);
}

/** `readConfig` for a document already parsed; `file` names it in messages. */
export function checkConfig(file, doc) {
  const fail = (queue, problem) => {
    throw new ConfigError(queue === null ? `${file}: ${problem}` : `${file}: queue "${queue}": ${problem}`);
  };
  if (!isObject(doc)) fail(null, "the top level must be an object with a \"queues\" array");
  for (const key of Object.keys(doc)) if (!TOP_KEYS.has(key)) fail(null, `unknown member "${key}" (expected "queues")`);
  if (!Array.isArray(doc.queues)) fail(null, "\"queues\" must be an array of queue declarations");
  const byName = new Map();
  doc.queues.forEach((q, i) => {
    if (!isObject(q)) fail(null, `queues[${i}] must be an object`);
    if (typeof q.name !== "string" || q.name === "") fail(null, `queues[${i}] has no "name" (a string)`);
    const name = q.name;
    if (byName.has(name)) fail(name, "declared twice");
    for (const key of Object.keys(q)) {
      if (!QUEUE_KEYS.has(key)) fail(name, `unknown member "${key}" (expected name, attributes, tags, deadLetterQueue)`);
    }
    const attributes = {};
    if (q.attributes !== undefined) {
      if (!isObject(q.attributes)) fail(name, "\"attributes\" must be an object of attribute names to values");
      for (const [attr, value] of Object.entries(q.attributes)) {
        if (!QUEUE_ATTRIBUTES.includes(attr)) fail(name, `unknown attribute "${attr}" (CreateQueue takes ${QUEUE_ATTRIBUTES.join(", ")})`);
        if (JSON_ATTRIBUTES.has(attr)) {
          if (isObject(value)) attributes[attr] = value;
          else if (typeof value === "string") {
            try {
              attributes[attr] = JSON.parse(value);
            } catch {
              fail(name, `attribute ${attr} is not a JSON document`);
            }
            if (!isObject(attributes[attr])) fail(name, `attribute ${attr} must be a JSON object`);
          } else fail(name, `attribute ${attr} must be an object (or its JSON text)`);
        } else if (typeof value === "string") attributes[attr] = value;
        else if (typeof value === "number" && Number.isFinite(value)) attributes[attr] = String(value);
        else if (typeof value === "boolean") attributes[attr] = String(value);
        else fail(name, `attribute ${attr} must be a string, number or boolean`);
      }
    }
    // A `.fifo` name is a FIFO queue; CreateQueue wants it said in the attributes as well.
    if (name.endsWith(".fifo") && attributes.FifoQueue === undefined) attributes.FifoQueue = "true";
    let dlq = null;
    if (q.deadLetterQueue !== undefined) {
      const d = q.deadLetterQueue;
      if (!isObject(d) || typeof d.name !== "string" || d.name === "") {
        fail(name, "\"deadLetterQueue\" must be { \"name\": \"…\", \"maxReceiveCount\": N }");
      }
      for (const key of Object.keys(d)) {
        if (key !== "name" && key !== "maxReceiveCount") fail(name, `deadLetterQueue: unknown member "${key}" (expected name, maxReceiveCount)`);
      }
      if (attributes.RedrivePolicy !== undefined) fail(name, "give either \"deadLetterQueue\" or attributes.RedrivePolicy, not both");
      if (!Number.isInteger(d.maxReceiveCount)) fail(name, "deadLetterQueue.maxReceiveCount must be an integer (1 to 1000)");
      attributes.RedrivePolicy = { deadLetterTargetArn: d.name, maxReceiveCount: d.maxReceiveCount };
    }
    if (attributes.RedrivePolicy !== undefined) {
      const target = attributes.RedrivePolicy.deadLetterTargetArn;
      if (typeof target !== "string" || target === "") fail(name, "RedrivePolicy.deadLetterTargetArn must name the dead-letter queue");
      dlq = nameOfTarget(target);
    }
    let tags = {};
    if (q.tags !== undefined) {
      if (!isObject(q.tags)) fail(name, "\"tags\" must be an object of tag keys to string values");
      for (const [key, value] of Object.entries(q.tags)) {
        if (typeof value !== "string") fail(name, `tag "${key}" must have a string value`);
      }
      tags = { ...q.tags };
    }
    byName.set(name, { name, attributes, tags, dlq });
  });
  for (const q of byName.values()) {
    if (q.dlq !== null && !byName.has(q.dlq)) {
      fail(q.name, `its dead-letter queue "${q.dlq}" is not declared in the file`);
    }
    const allow = q.attributes.RedriveAllowPolicy;
    if (Array.isArray(allow?.sourceQueueArns)) {
      for (const source of allow.sourceQueueArns) {
        if (typeof source === "string" && !source.startsWith("arn:") && !byName.has(source)) {
          fail(q.name, `RedriveAllowPolicy names "${source}", which is not declared in the file`);
        }
      }
    }
  }
  // Dependency order: a dead-letter queue before every queue whose redrive policy names it.
  const ordered = [];
  const state = new Map(); // name → "visiting" | "done"
  const visit = (q, path) => {
    if (state.get(q.name) === "done") return;
    if (state.get(q.name) === "visiting") {
      fail(q.name, `redrive links form a cycle: ${[...path, q.name].join(" → ")}`);
    }
    state.set(q.name, "visiting");
    if (q.dlq !== null) visit(byName.get(q.dlq), [...path, q.name]);
    state.set(q.name, "done");
    ordered.push(q);
  };
  for (const q of byName.values()) visit(q, []);
  return { queues: ordered };
}

/** A JSON value with object members sorted and every scalar as text: SQS answers policies with
 * numbers as strings or numbers depending on who wrote them, and they mean the same. */
function canonical(v) {
  if (Array.isArray(v)) return v.map(canonical);
  if (isObject(v)) {
    const out = {};
    for (const key of Object.keys(v).sort()) out[key] = canonical(v[key]);
    return out;
  }
  return String(v);
}

function sameValue(attr, current, wanted) {
  if (current === undefined) return false;
  if (!JSON_ATTRIBUTES.has(attr)) return current === wanted;
  try {
    return JSON.stringify(canonical(JSON.parse(current))) === JSON.stringify(canonical(JSON.parse(wanted)));
  } catch {
    return false;
  }
}

/** The queue's ARN as the engine names it (its own account and region). */
function arnOf(engine, url) {
  return engine.getQueueAttributes({ QueueUrl: url, AttributeNames: ["QueueArn"] }).Attributes.QueueArn;
}

/** Attributes as CreateQueue/SetQueueAttributes take them: queue names in policies as ARNs. */
function resolvedAttributes(q, arns) {
  const out = {};
  for (const [attr, value] of Object.entries(q.attributes)) {
    if (attr === "RedrivePolicy") {
      out[attr] = JSON.stringify({ ...value, deadLetterTargetArn: arns.get(q.dlq) });
    } else if (attr === "RedriveAllowPolicy" && Array.isArray(value.sourceQueueArns)) {
      const sourceQueueArns = value.sourceQueueArns.map((s) => (typeof s === "string" && !s.startsWith("arn:") ? arns.get(s) : s));
      out[attr] = JSON.stringify({ ...value, sourceQueueArns });
    } else if (JSON_ATTRIBUTES.has(attr)) {
      out[attr] = JSON.stringify(value);
    } else {
      out[attr] = value;
    }
  }
  return out;
}

/**
 * Make `engine` hold the declared queues, in the config's (dependency) order. Returns what was
 * done, one entry per queue: `{ name, action: "created" | "updated" | "unchanged", attributes:
 * [names set], tags: [keys set] }`. A refusal by the engine is thrown as a ConfigError naming
 * `file` and the queue. A RedriveAllowPolicy naming a queue that comes later in the order is set
 * once that queue exists.
 */
export function applyConfig(engine, config, file) {
  const arns = new Map();
  const urls = new Map();
  const report = [];
  const step = (name, run) => {
    try {
      return run();
    } catch (err) {
      if (typeof err?.code !== "string") throw err; // not an SQS refusal: a bug, shown as one
      throw new ConfigError(`${file}: queue "${name}": ${err.name}: ${err.message}`);
    }
  };
  for (const q of config.queues) {
    step(q.name, () => {
      let url = null;
      try {
        url = engine.getQueueUrl({ QueueName: q.name }).QueueUrl;
      } catch (err) {
        if (err?.name !== "QueueDoesNotExist") throw err;
      }
      const sources = q.attributes.RedriveAllowPolicy?.sourceQueueArns;
      const pending = Array.isArray(sources) && sources.some((s) => typeof s === "string" && !s.startsWith("arn:") && !arns.has(s));
      const wanted = resolvedAttributes(q, arns);
      if (pending) delete wanted.RedriveAllowPolicy;
      if (url === null) {
        const tags = Object.keys(q.tags).length > 0 ? { tags: q.tags } : {};
        url = engine.createQueue({ QueueName: q.name, Attributes: wanted, ...tags }).QueueUrl;
        report.push({ name: q.name, action: "created", attributes: Object.keys(wanted), tags: Object.keys(q.tags), pending });
      } else {
        const entry = { name: q.name, action: "unchanged", attributes: [], tags: [], pending };
        report.push(entry);
        updateQueue(engine, url, wanted, q.tags, entry);
      }
      urls.set(q.name, url);
      arns.set(q.name, arnOf(engine, url));
    });
  }
  for (const entry of report) {
    if (!entry.pending) continue;
    const q = config.queues.find((c) => c.name === entry.name);
    step(q.name, () => {
      const wanted = { RedriveAllowPolicy: resolvedAttributes(q, arns).RedriveAllowPolicy };
      updateQueue(engine, urls.get(q.name), wanted, {}, entry);
    });
  }
  return report.map(({ pending, ...rest }) => rest);
}

function updateQueue(engine, url, wanted, tags, entry) {
  const current = engine.getQueueAttributes({ QueueUrl: url, AttributeNames: ["All"] }).Attributes ?? {};
  const changed = {};
  for (const [attr, value] of Object.entries(wanted)) {
    // FifoQueue is the name's (.fifo) and cannot be set on a queue that exists; a standard
    // queue does not list it at all.
    if (attr === "FifoQueue") continue;
    if (!sameValue(attr, current[attr], value)) changed[attr] = value;
  }
  if (Object.keys(changed).length > 0) {
    engine.setQueueAttributes({ QueueUrl: url, Attributes: changed });
    for (const attr of Object.keys(changed)) if (!entry.attributes.includes(attr)) entry.attributes.push(attr);
    if (entry.action === "unchanged") entry.action = "updated";
  }
  const currentTags = engine.listQueueTags({ QueueUrl: url }).Tags ?? {};
  const newTags = {};
  for (const [key, value] of Object.entries(tags)) if (currentTags[key] !== value) newTags[key] = value;
  if (Object.keys(newTags).length > 0) {
    engine.tagQueue({ QueueUrl: url, Tags: newTags });
    entry.tags.push(...Object.keys(newTags));
    if (entry.action === "unchanged") entry.action = "updated";
  }
}

/**
 * Read `file`, check it against everything the engine would refuse by applying it to a scratch
 * in-memory engine, then apply it to `engine`. Throws ConfigError (the file, the queue and the
 * problem named) before `engine` is touched when the file is malformed or the scratch engine
 * refuses anything.
 */
export function configure(engine, file) {
  const config = readConfig(file);
  const scratch = new Engine({ storage: null, timers: false });
  try {
    applyConfig(scratch, config, file);
  } finally {
    scratch.close();
  }
  return applyConfig(engine, config, file);
}
