// Storage records and change batches as one byte buffer each: the form in which they cross the
// wasm boundary (src/wasm/packed.rs reads and writes the same layout). One buffer costs one copy
// per call, where an array of [key, Uint8Array] pairs costs several boundary calls per record.
//
// Layout, every length a little-endian u32, keys UTF-8:
//   batch    put count, del count, puts as (key len, key, value len, value), dels as (key len, key)
//   records  (key len, key, value len, value) repeated to the end
//
// Adapters see the documented `{ put, del }` batch and `loadAll()` iterable unless they have the
// package-private methods below, which the built-in adapters use to skip the per-record objects.

/** `adapter[COMMIT_PACKED](bytes)`: commit a batch buffer. `bytes` is fresh: it may be kept as is. */
export const COMMIT_PACKED = Symbol("wasq.commitPacked");
/** `adapter[LOAD_PACKED]()`: every record as one records buffer (a fresh one). */
export const LOAD_PACKED = Symbol("wasq.loadPacked");

const decoder = new TextDecoder();
const encoder = new TextEncoder();

function malformed() {
  return new TypeError("wasq: malformed change batch buffer");
}

/**
 * Walk a batch buffer: `onPut(key, value, entry)` for each put, then `onDel(key)` for each
 * delete. `value` and `entry` (the put's bytes in the records layout) are views into `bytes`. The whole buffer is checked before the first callback, so a
 * malformed buffer throws having applied nothing.
 */
export function forEachPacked(bytes, onPut, onDel) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = bytes.byteLength;
  if (end < 8) throw malformed();
  const puts = view.getUint32(0, true);
  const dels = view.getUint32(4, true);
  const skip = (at) => {
    if (at + 4 > end) throw malformed();
    const next = at + 4 + view.getUint32(at, true);
    if (next > end) throw malformed();
    return next;
  };
  let at = 8;
  for (let i = 0; i < puts; i++) at = skip(skip(at));
  for (let i = 0; i < dels; i++) at = skip(at);
  if (at !== end) throw malformed();
  at = 8;
  for (let i = 0; i < puts; i++) {
    const start = at;
    const keyLen = view.getUint32(at, true);
    const key = decoder.decode(bytes.subarray(at + 4, at + 4 + keyLen));
    at += 4 + keyLen;
    const valueLen = view.getUint32(at, true);
    at += 4 + valueLen;
    onPut(key, bytes.subarray(at - valueLen, at), bytes.subarray(start, at));
  }
  for (let i = 0; i < dels; i++) {
    const keyLen = view.getUint32(at, true);
    onDel(decoder.decode(bytes.subarray(at + 4, at + 4 + keyLen)));
    at += 4 + keyLen;
  }
}

/** One record in the records layout, in a buffer of its own. */
export function packEntry(key, value) {
  const keyBytes = encoder.encode(key);
  const entry = new Uint8Array(8 + keyBytes.length + value.length);
  const view = new DataView(entry.buffer);
  view.setUint32(0, keyBytes.length, true);
  entry.set(keyBytes, 4);
  view.setUint32(4 + keyBytes.length, value.length, true);
  entry.set(value, 8 + keyBytes.length);
  return entry;
}

/** The value of a record in the records layout (a view). */
export function entryValue(entry) {
  const keyLen = new DataView(entry.buffer, entry.byteOffset, 4).getUint32(0, true);
  return entry.subarray(8 + keyLen);
}

/** The records-layout entries of a Map (its values) concatenated into one buffer, or undefined. */
export function concatEntries(map) {
  let size = 0;
  for (const entry of map.values()) size += entry.length;
  if (size === 0) return undefined;
  const out = new Uint8Array(size);
  let at = 0;
  for (const entry of map.values()) {
    out.set(entry, at);
    at += entry.length;
  }
  return out;
}

/** The documented `{ put: [key, Uint8Array][], del: key[] }` form of a batch buffer. */
export function unpackBatch(bytes) {
  const put = [];
  const del = [];
  forEachPacked(
    bytes,
    (key, value) => put.push([key, value]),
    (key) => del.push(key),
  );
  return { put, del };
}

/**
 * A records buffer of `[key, Uint8Array]` entries (any iterable: an adapter's loadAll(), a Map),
 * or undefined when there are none. Keys must be strings and values Uint8Arrays, as the
 * adapter interface says; anything else is a TypeError naming the entry.
 */
export function packRecords(entries) {
  // Two passes, sizing then writing; a one-shot iterable (a generator) is collected first.
  const list = Array.isArray(entries) || entries instanceof Map ? entries : Array.from(entries);
  let size = 0;
  let index = 0;
  for (const entry of list) {
    const key = entry?.[0];
    const value = entry?.[1];
    if (typeof key !== "string" || !(value instanceof Uint8Array)) {
      throw new TypeError(`storage loadAll(): record ${index} is not a [string, Uint8Array] pair`);
    }
    size += 8 + key.length + value.length; // exact for ASCII keys, all of today's
    index++;
  }
  if (size === 0) return undefined;
  let out = new Uint8Array(size);
  let view = new DataView(out.buffer);
  let at = 0;
  for (const [key, value] of list) {
    const units = key.length;
    let ascii = at + 8 + units + value.length <= out.length;
    // A plain loop beats TextEncoder.encodeInto on short ASCII keys (no view per key).
    for (let i = 0; ascii && i < units; i++) {
      const c = key.charCodeAt(i);
      if (c > 0x7f) ascii = false;
      else out[at + 4 + i] = c;
    }
    let written = units;
    if (!ascii) {
      // Room for the worst case, 3 bytes per UTF-16 unit, for this record and all after it.
      if (at + 8 + units * 3 + value.length > out.length) {
        const grown = new Uint8Array(out.length * 2 + units * 3 + value.length + 8);
        grown.set(out.subarray(0, at));
        out = grown;
        view = new DataView(out.buffer);
      }
      written = encoder.encodeInto(key, out.subarray(at + 4, at + 4 + units * 3)).written;
    }
    view.setUint32(at, written, true);
    at += 4 + written;
    view.setUint32(at, value.length, true);
    out.set(value, at + 4);
    at += 4 + value.length;
  }
  return at === out.length ? out : out.subarray(0, at);
}
