// Where each live record of a FileStorage log lies: for every key, the file offset and byte
// size of its latest entry (see file-format.js). The values stay in the file: an Engine holds
// every record in its own memory already, and a second copy here cost more than the engine's
// own. A restore and a compaction read the live entries back from the file.
//
// The keys stay in the file too. This is a hash table in typed arrays (open addressing, linear
// probing, deletion by backward shift) whose slots hold a key's 32-bit hash, its entry's offset
// and its entry's size; a key is compared with the key bytes at the entry's offset (read through
// `readKey`) only when the hashes agree, so a lookup reads the file about once when the key is
// there and almost never when it is not. A JavaScript Map holding every key as a string cost
// about four times as much per key, and its strings, surviving young-generation collections one
// per message, made V8 grow its heap well beyond them.

const EMPTY = 0; // in #sizes: an entry is at least 8 bytes, so size 0 marks a free slot
const MAX_LOAD = 0.75;
const encoder = new TextEncoder();

export class EntryIndex {
  #readKey;
  #mask = 255;
  #hashes = new Int32Array(256);
  /** Each slot's entry offset in the log (a double: exact far beyond any file size). */
  #offsets = new Float64Array(256);
  /** Each slot's entry size (a record's payload length is a u32, so an entry's fits too). */
  #sizes = new Uint32Array(256);
  #count = 0;
  #liveBytes = 0;

  /** @param {(offset: number, size: number) => Uint8Array} readKey the key bytes of the entry at `offset` */
  constructor(readKey) {
    this.#readKey = readKey;
  }

  /** Live keys. */
  get count() {
    return this.#count;
  }

  /** The sum of the live entries' sizes: what the log would hold after a compaction, but for heads. */
  get liveBytes() {
    return this.#liveBytes;
  }

  set(key, offset, size) {
    const hash = hashKey(key);
    let i = this.#find(key, hash);
    if (i < 0) {
      if (this.#count + 1 > MAX_LOAD * (this.#mask + 1)) this.#grow();
      i = hash & this.#mask;
      while (this.#sizes[i] !== EMPTY) i = (i + 1) & this.#mask;
      this.#hashes[i] = hash;
      this.#count++;
    } else {
      this.#liveBytes -= this.#sizes[i];
    }
    this.#offsets[i] = offset;
    this.#sizes[i] = size;
    this.#liveBytes += size;
  }

  delete(key) {
    let i = this.#find(key, hashKey(key));
    if (i < 0) return;
    this.#liveBytes -= this.#sizes[i];
    this.#count--;
    // Backward shift: move later slots of the probe run into the hole when their home allows,
    // so that a lookup can stop at the first free slot.
    const mask = this.#mask;
    const hashes = this.#hashes;
    const sizes = this.#sizes;
    for (let j = (i + 1) & mask; sizes[j] !== EMPTY; j = (j + 1) & mask) {
      const home = hashes[j] & mask;
      // Slot j may move to i unless its home lies cyclically in (i, j].
      if (i <= j ? i < home && home <= j : i < home || home <= j) continue;
      hashes[i] = hashes[j];
      this.#offsets[i] = this.#offsets[j];
      sizes[i] = sizes[j];
      i = j;
    }
    sizes[i] = EMPTY;
  }

  /** The live slots in file order (so that reading them back walks the file forwards). */
  inFileOrder() {
    const slots = new Uint32Array(this.#count);
    let n = 0;
    for (let i = 0; i <= this.#mask; i++) if (this.#sizes[i] !== EMPTY) slots[n++] = i;
    const offsets = this.#offsets;
    return slots.sort((a, b) => offsets[a] - offsets[b]);
  }

  offset(slot) {
    return this.#offsets[slot];
  }

  size(slot) {
    return this.#sizes[slot];
  }

  /** After a compaction: `slots[i]`'s entry is now at `offsets[i]` (slots do not move). */
  moveAll(slots, offsets) {
    for (let i = 0; i < slots.length; i++) this.#offsets[slots[i]] = offsets[i];
  }

  /** The slot holding `key`, or -1. */
  #find(key, hash) {
    const mask = this.#mask;
    for (let i = hash & mask; this.#sizes[i] !== EMPTY; i = (i + 1) & mask) {
      if (this.#hashes[i] === hash && sameKey(key, this.#readKey(this.#offsets[i], this.#sizes[i]))) return i;
    }
    return -1;
  }

  #grow() {
    const hashes = this.#hashes;
    const offsets = this.#offsets;
    const sizes = this.#sizes;
    const capacity = 2 * (this.#mask + 1);
    this.#mask = capacity - 1;
    this.#hashes = new Int32Array(capacity);
    this.#offsets = new Float64Array(capacity);
    this.#sizes = new Uint32Array(capacity);
    // Keys are distinct already: each goes to the first free slot from its home, unread.
    for (let j = 0; j < sizes.length; j++) {
      if (sizes[j] === EMPTY) continue;
      let i = hashes[j] & this.#mask;
      while (this.#sizes[i] !== EMPTY) i = (i + 1) & this.#mask;
      this.#hashes[i] = hashes[j];
      this.#offsets[i] = offsets[j];
      this.#sizes[i] = sizes[j];
    }
  }
}

/**
 * FNV-1a over the UTF-16 code units, then murmur3's finalizer so the low bits (the home slot)
 * mix. A lone surrogate is stored as U+FFFD (UTF-8 has no other way), so it hashes as one.
 */
function hashKey(key) {
  if (!key.isWellFormed()) key = key.toWellFormed();
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** Whether `bytes` is the UTF-8 of `key`. ASCII (every key the engine writes) compared in place. */
function sameKey(key, bytes) {
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c >= 0x80) return Buffer.from(encoder.encode(key)).equals(bytes);
    if (c !== bytes[i]) return false;
  }
  return bytes.length === key.length;
}
