// Test helpers written from the design (docs/edge.md), not imported from the Worker, so a change
// in the Worker's placement shows up as a failure.

const encoder = new TextEncoder();

/** The partition a message group lives in: FNV-1a (32-bit) of its UTF-8 bytes, mod the count. */
export function groupHashPartition(group, partitions) {
  let h = 0x811c9dc5;
  for (const b of encoder.encode(group)) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % partitions;
}
