// Shared by every adapter: one definition of a well-formed batch, so a bad batch fails
// identically everywhere and before any adapter has written anything; and the packed form of
// batches and records (below), in which they cross the wasm boundary.

/**
 * Check a `{ put, del }` batch and return it with absent lists normalised to `[]`.
 * Puts are applied before deletes; a key in both lists ends up deleted.
 * @param {{ put?: [string, Uint8Array][], del?: string[] }} batch
 * @returns {{ put: [string, Uint8Array][], del: string[] }}
 */
export function checkBatch(batch) {
  if (batch === null || typeof batch !== "object") {
    throw new TypeError("storage commit: batch must be an object { put, del }");
  }
  const put = batch.put ?? [];
  const del = batch.del ?? [];
  if (!Array.isArray(put) || !Array.isArray(del)) {
    throw new TypeError("storage commit: batch.put and batch.del must be arrays");
  }
  for (const entry of put) {
    if (!Array.isArray(entry) || typeof entry[0] !== "string" || !(entry[1] instanceof Uint8Array)) {
      throw new TypeError("storage commit: each put must be [string key, Uint8Array value]");
    }
  }
  for (const key of del) {
    if (typeof key !== "string") throw new TypeError("storage commit: each del must be a string key");
  }
  return { put, del };
}

/** Standard base64 of bytes, without Node's Buffer so it also runs in browsers and workerd. */
export function bytesToBase64(bytes) {
  let binary = "";
  const chunk = 0x8000;
  for (let i = 0; i < bytes.length; i += chunk) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + chunk));
  }
  return btoa(binary);
}

export function base64ToBytes(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

// Packed form: storage records and change batches as one byte buffer each, the form in which
// they cross the wasm boundary (src/wasm/records.rs reads the same layout). One buffer costs one copy
// per call, where an array of [key, Uint8Array] pairs costs several boundary calls per record.
//
// Layout, every length a little-endian u32, keys UTF-8:
//   batch    put count, del count, puts as (key len, key, value len, value), dels as (key len, key)
//   records  (key len, key, value len, value) repeated to the end
//
// Adapters see the documented `{ put, del }` batch and `loadAll()` iterable unless they have the
// package-private methods below, which MemoryStorage (the default) uses to skip the per-record objects.

/** `adapter[COMMIT_PACKED](bytes)`: commit a batch buffer. `bytes` is fresh: it may be kept as is. */
export const COMMIT_PACKED = Symbol("wasq.commitPacked");
/**
 * `adapter[LOAD_PACKED](into)`: write every record, in the records layout, into `into(size)` (a
 * Uint8Array of exactly `size` bytes, in the wasm memory: the records are copied once) and return
 * it, or return undefined without calling `into` when there are none.
 */
export const LOAD_PACKED = Symbol("wasq.loadPacked");

/**
 * The `loadAll` methods whose adapters' LOAD_PACKED stands for them. The Engine uses LOAD_PACKED
 * only while `adapter.loadAll` is one of these, so a subclass or an instance that replaces
 * loadAll() is read through its own loadAll().
 */
export const PACKED_LOADS = new WeakSet();

const fresh = (size) => new Uint8Array(size);

const decoder = new TextDecoder();
const encoder = new TextEncoder();

const u32 = (bytes, at) => (bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16) | (bytes[at + 3] << 24)) >>> 0;

/**
 * Walk a batch buffer: `onPut(key, value, entry)` for each put, then `onDel(key)` for each
 * delete. `value` and `entry` (the put's bytes in the records layout) are views into `bytes`.
 * The whole buffer is checked before the first callback, so a malformed one throws having
 * applied nothing.
 */
export function forEachPacked(bytes, onPut, onDel) {
  // No closures in here: the package build wraps every function to keep its name, which would
  // cost a defineProperty per call.
  const end = bytes.length;
  const puts = u32(bytes, 0);
  const parts = 2 * puts + u32(bytes, 4);
  let at = 8;
  // Past the end u32() reads 0, so a cut-short length still lands beyond `end`.
  for (let i = 0; i < parts && at <= end; i++) at += 4 + u32(bytes, at);
  if (end < 8 || at !== end) throw new TypeError("wasq: malformed change batch buffer");
  at = 8;
  for (let i = 0; i < puts; i++) {
    const start = at;
    const keyEnd = at + 4 + u32(bytes, at);
    at = keyEnd + 4 + u32(bytes, keyEnd);
    onPut(decoder.decode(bytes.subarray(start + 4, keyEnd)), bytes.subarray(keyEnd + 4, at), bytes.subarray(start, at));
  }
  while (at < end) {
    const next = at + 4 + u32(bytes, at);
    onDel(decoder.decode(bytes.subarray(at + 4, next)));
    at = next;
  }
}

/** The documented `{ put: [key, Uint8Array][], del: key[] }` form of a batch buffer. */
export function unpackBatch(bytes) {
  const put = [];
  const del = [];
  forEachPacked(bytes, (key, value) => put.push([key, value]), (key) => del.push(key));
  return { put, del };
}

/**
 * `[key, Uint8Array]` entries (any iterable: an adapter's loadAll(), a Map) in one records
 * buffer, `into(size)` (default: a fresh one), or undefined when there are none. Anything but a
 * string key and a Uint8Array value is a TypeError, as the adapter interface says, thrown before
 * `into` is called.
 */
export function packRecords(entries, into = fresh) {
  const parts = [];
  let size = 0;
  for (const [key, value] of entries) {
    if (typeof key !== "string" || !(value instanceof Uint8Array)) {
      throw new TypeError(`storage loadAll(): record ${parts.length / 2} is not a [string, Uint8Array] pair`);
    }
    parts.push(key, value);
    size += 8 + utf8Length(key) + value.length;
  }
  if (size === 0) return undefined;
  // The layout is a run of (length, bytes) parts: key, value, key, value, …
  // Keys are written in place: a TextEncoder.encode per key (a buffer each) was ~8 % of a restore.
  const out = into(size);
  let at = 0;
  for (let i = 0; i < parts.length; i += 2) {
    const key = parts[i];
    const value = parts[i + 1];
    const n = writeKey(out, at + 4, key);
    putU32(out, at, n);
    at += 4 + n;
    putU32(out, at, value.length);
    out.set(value, at + 4);
    at += 4 + value.length;
  }
  return out;
}

function putU32(out, at, n) {
  out[at] = n;
  out[at + 1] = n >>> 8;
  out[at + 2] = n >>> 16;
  out[at + 3] = n >>> 24;
}

/** The UTF-8 length of `text` as TextEncoder writes it (a lone surrogate becomes U+FFFD, 3 bytes). */
function utf8Length(text) {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 2; // a pair: 2 UTF-16 units, 4 bytes
      i++;
    } else n += 2;
  }
  return n;
}

/** Writes `key` as UTF-8 at `at` and answers its length; ASCII (every key the engine writes) by hand. */
function writeKey(out, at, key) {
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c >= 0x80) return encoder.encodeInto(key, out.subarray(at, at + utf8Length(key))).written;
    out[at + i] = c;
  }
  return key.length;
}

/** The value of one records-layout entry, as a view. */
export const entryValue = (entry) => entry.subarray(8 + u32(entry, 0));

/** A Map's records-layout entries (its values) concatenated into `into(size)`, or undefined. */
export function concatEntries(map, into = fresh) {
  let size = 0;
  for (const entry of map.values()) size += entry.length;
  if (size === 0) return undefined;
  const out = into(size);
  let at = 0;
  for (const entry of map.values()) {
    out.set(entry, at);
    at += entry.length;
  }
  return out;
}
