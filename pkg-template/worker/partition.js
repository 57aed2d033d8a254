// Partitioning rules: which queues may be split, into how many objects, where a message goes,
// and how a receipt handle names the object that minted it.

/** The creation tag that overrides the deployment's default partition count for one queue. */
export const PARTITIONS_TAG = "wasq:partitions";
export const MAX_PARTITIONS = 64;

/**
 * How many partition objects a new queue gets. Only queues whose semantics survive a split are
 * split: standard queues, and FIFO queues in high-throughput mode (deduplication per message
 * group, so no dedup id has to be checked across partitions). A queue-scoped FIFO queue stays in
 * one object: its dedup window spans all groups.
 */
export function partitionsFor(attributes, tags, env) {
  const fifo = attributes.FifoQueue === "true";
  if (fifo && !(attributes.DeduplicationScope === "messageGroup" && attributes.FifoThroughputLimit === "perMessageGroupId")) {
    return 1;
  }
  const asked = Number(tags?.[PARTITIONS_TAG] ?? env?.WASQ_PARTITIONS ?? 1);
  if (!Number.isInteger(asked) || asked < 1) return 1;
  return Math.min(asked, MAX_PARTITIONS);
}

/** The Durable Object name (→ idFromName) of partition `p` of a queue. */
export function objectName(region, name, p) {
  return `${region}/${name}/${p}`;
}

const encoder = new TextEncoder();

/** FNV-1a (32-bit) of the group id's UTF-8 bytes: stable across isolates and deployments. */
export function groupHash(group) {
  let h = 0x811c9dc5;
  for (const b of encoder.encode(group)) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/**
 * The partition of a message: its group's hash, so one group always lives in one partition
 * (order and group locking stay inside one engine); messages without a group go round-robin.
 */
export function partitionOf(group, partitions, spread) {
  if (partitions === 1) return 0;
  if (group !== undefined && group !== "") return groupHash(group) % partitions;
  return spread() % partitions;
}

/** `<location>:<engine handle>`: the location index in the queue's directory record. */
export function wrapHandle(location, handle) {
  return `${location}:${handle}`;
}

/** `{ location, handle }`, or null for a handle this Worker did not wrap (the engine rejects it). */
export function unwrapHandle(text) {
  if (typeof text !== "string") return null;
  const m = /^(\d{1,4}):([\s\S]*)$/.exec(text);
  return m ? { location: Number(m[1]), handle: m[2] } : null;
}
