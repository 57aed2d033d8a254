// Where each live record of a FileStorage log lies: for every key, the file offset and byte
// size of its latest entry (see file-format.js). The values themselves stay in the file. An
// Engine holds every record in its own memory already, so a second copy here cost more than the
// engine's own (1,705 bytes a stored 200-byte message against 508 with no storage at all), and
// nothing needs it: a restore and a compaction read the live entries back from the file.
//
// A key maps to a small integer slot, and a slot's offset and size live in typed arrays: a map
// value that is a small integer costs nothing beyond the map's own entry, where an object or a
// boxed number per record would cost more than the numbers in it.

export class EntryIndex {
  /** key → slot */
  #slots = new Map();
  /** Each slot's entry offset in the log (a double: exact far beyond any file size). */
  #offsets = new Float64Array(256);
  /** Each slot's entry size (a record's payload length is a u32, so an entry's fits too). */
  #sizes = new Uint32Array(256);
  /** Slots given back by deletes, handed out again first. */
  #free = [];
  /** Slots ever handed out. */
  #used = 0;
  #liveBytes = 0;

  /** Live keys. */
  get count() {
    return this.#slots.size;
  }

  /** The sum of the live entries' sizes: what the log would hold after a compaction, but for heads. */
  get liveBytes() {
    return this.#liveBytes;
  }

  set(key, offset, size) {
    let slot = this.#slots.get(key);
    if (slot === undefined) {
      slot = this.#free.length > 0 ? this.#free.pop() : this.#newSlot();
      this.#slots.set(key, slot);
    } else {
      this.#liveBytes -= this.#sizes[slot];
    }
    this.#offsets[slot] = offset;
    this.#sizes[slot] = size;
    this.#liveBytes += size;
  }

  delete(key) {
    const slot = this.#slots.get(key);
    if (slot === undefined) return;
    this.#slots.delete(key);
    this.#liveBytes -= this.#sizes[slot];
    this.#free.push(slot);
  }

  /** The live slots in file order (so that reading them back walks the file forwards). */
  inFileOrder() {
    const slots = new Uint32Array(this.#slots.size);
    let i = 0;
    for (const slot of this.#slots.values()) slots[i++] = slot;
    const offsets = this.#offsets;
    return slots.sort((a, b) => offsets[a] - offsets[b]);
  }

  offset(slot) {
    return this.#offsets[slot];
  }

  size(slot) {
    return this.#sizes[slot];
  }

  /** After a compaction: `slots[i]`'s entry is now at `offsets[i]`. */
  moveAll(slots, offsets) {
    for (let i = 0; i < slots.length; i++) this.#offsets[slots[i]] = offsets[i];
  }

  #newSlot() {
    if (this.#used === this.#offsets.length) {
      const offsets = new Float64Array(this.#used * 2);
      offsets.set(this.#offsets);
      this.#offsets = offsets;
      const sizes = new Uint32Array(this.#used * 2);
      sizes.set(this.#sizes);
      this.#sizes = sizes;
    }
    return this.#used++;
  }
}
