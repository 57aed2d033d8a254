// The bytes of a FileStorage log, and how they are read back.
//
// File layout (integers little-endian):
//   header  16 bytes: magic "WASQLOG\n", u32 format version, u32 reserved (0)
//   record  16-byte head: u32 payload length, 8 bytes SHA-256(payload) prefix,
//           4 bytes SHA-256(first 12 head bytes) prefix; then the payload
//   payload u8 kind (1 = batch), u32 puts, u32 dels, puts as (u32 key len, key UTF-8,
//           u32 value len, value), dels as (u32 key len, key UTF-8)
//
// A put, from its key length to its value's end, is an *entry*: byte for byte the records layout
// of batch.js, so live entries can be copied from the file straight into an Engine's restore
// buffer, and the file store needs to remember only where each one is.

import * as fs from "node:fs";
import * as path from "node:path";
import * as crypto from "node:crypto";

export const FILE_FORMAT_VERSION = 1;
const MAGIC = Buffer.from("WASQLOG\n", "latin1");
export const FILE_HEADER_BYTES = 16;
export const RECORD_HEAD_BYTES = 16;
/** A batch payload's own head: u8 kind, u32 puts, u32 dels. */
export const BATCH_HEAD_BYTES = 9;
/** Where a batch record's first entry starts, from the record's start. */
export const FIRST_ENTRY = RECORD_HEAD_BYTES + BATCH_HEAD_BYTES;
const KIND_BATCH = 1;

const encoder = new TextEncoder();

// One-shot where Node has it (20.12+): a Hash object per checksum holds native memory until
// the garbage collector finds it, and at two checksums a commit that kept the server's resident
// memory well above what it uses.
const sha256 = crypto.hash
  ? (bytes) => crypto.hash("sha256", bytes, "buffer")
  : (bytes) => crypto.createHash("sha256").update(bytes).digest();

function checksum(bytes, length) {
  return sha256(bytes).subarray(0, length);
}

export function fileHeader() {
  const header = Buffer.alloc(FILE_HEADER_BYTES);
  MAGIC.copy(header, 0);
  header.writeUInt32LE(FILE_FORMAT_VERSION, 8);
  return header;
}

export function checkFileHeader(bytes, file) {
  if (bytes.length < FILE_HEADER_BYTES || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw new Error(`wasq FileStorage: ${file} is not a wasq log (bad header)`);
  }
  const version = bytes.readUInt32LE(8);
  if (version > FILE_FORMAT_VERSION) {
    throw new Error(
      `wasq FileStorage: ${file} has format version ${version}, newer than this wasq supports ` +
        `(${FILE_FORMAT_VERSION}); upgrade wasq to open it`,
    );
  }
  if (version < 1) throw new Error(`wasq FileStorage: ${file} has invalid format version ${version}`);
}

/**
 * Turn `buf` (16 bytes of room, the batch head's 9, then `puts` entries and `dels` keys, up to
 * `end`) into a whole record: the batch head and the record head are written in place.
 */
export function sealBatchRecord(buf, end, puts, dels) {
  buf[RECORD_HEAD_BYTES] = KIND_BATCH;
  buf.writeUInt32LE(puts, RECORD_HEAD_BYTES + 1);
  buf.writeUInt32LE(dels, RECORD_HEAD_BYTES + 5);
  const record = buf.subarray(0, end);
  record.writeUInt32LE(end - RECORD_HEAD_BYTES, 0);
  checksum(record.subarray(RECORD_HEAD_BYTES), 8).copy(record, 4);
  checksum(record.subarray(0, 12), 4).copy(record, 12);
  return record;
}

/**
 * One commit batch as one record. `sizes[i]` is the byte length of put i's entry; the entries
 * follow each other from FIRST_ENTRY on, in the order of `put`.
 */
export function encodeBatchRecord(put, del) {
  const putKeys = put.map(([key]) => encoder.encode(key));
  const delKeys = del.map((key) => encoder.encode(key));
  const sizes = put.map(([, value], i) => 8 + putKeys[i].length + value.length);
  let size = FIRST_ENTRY;
  for (const n of sizes) size += n;
  for (const key of delKeys) size += 4 + key.length;
  const out = Buffer.allocUnsafe(size);
  let at = FIRST_ENTRY;
  put.forEach(([, value], i) => {
    out.writeUInt32LE(putKeys[i].length, at);
    out.set(putKeys[i], at + 4);
    at += 4 + putKeys[i].length;
    out.writeUInt32LE(value.length, at);
    out.set(value, at + 4);
    at += 4 + value.length;
  });
  for (const key of delKeys) {
    out.writeUInt32LE(key.length, at);
    out.set(key, at + 4);
    at += 4 + key.length;
  }
  return { record: sealBatchRecord(out, size, put.length, del.length), sizes };
}

/**
 * Walk one batch payload (checksummed, so whole): `onPut(keyBytes, entryStart, entrySize)` for
 * each put, with the entry's offset within the payload, then `onDel(keyBytes)` for each delete.
 * The key bytes are views of `payload`. A payload that does not parse is refused: a checksum
 * that matches over a malformed batch is not something a crash leaves.
 */
export function walkBatch(payload, file, onPut, onDel) {
  let at = 0;
  const need = (n) => {
    if (at + n > payload.length) throw new Error(`wasq FileStorage: ${file} holds a malformed batch record`);
  };
  need(BATCH_HEAD_BYTES);
  if (payload[0] !== KIND_BATCH) {
    throw new Error(`wasq FileStorage: ${file} holds a record of unknown kind ${payload[0]}`);
  }
  const puts = payload.readUInt32LE(1);
  const dels = payload.readUInt32LE(5);
  at = BATCH_HEAD_BYTES;
  const skip = () => {
    need(4);
    const length = payload.readUInt32LE(at);
    at += 4;
    need(length);
    at += length;
    return length;
  };
  for (let i = 0; i < puts; i++) {
    const start = at;
    const keyLength = skip();
    skip();
    onPut(payload.subarray(start + 4, start + 4 + keyLength), start, at - start);
  }
  for (let i = 0; i < dels; i++) {
    const keyLength = skip();
    onDel(payload.subarray(at - keyLength, at));
  }
  if (at !== payload.length) throw new Error(`wasq FileStorage: ${file} holds a malformed batch record`);
}

/**
 * Positional reads of a file of known size through one reused buffer. `view(offset, n)` answers
 * the bytes [offset, offset + n) as a view that stays valid until the next call. Bytes already
 * in the buffer are reused, and each refill reads ahead as far as the buffer reaches, at most
 * `chunkBytes` per read call, so both a sequential scan and a walk through sorted offsets cost
 * about one read per chunk. The buffer grows only to hold a single range larger than itself (a
 * record bigger than a chunk), so memory stays bounded by the largest record, whatever the
 * file's size. Node's readFileSync refuses files over 2 GiB; this reads any size.
 */
export class LogReader {
  #fd;
  #size;
  #chunkBytes;
  #buf;
  #base = 0;
  #length = 0;

  constructor(fd, size, chunkBytes) {
    this.#fd = fd;
    this.#size = size;
    this.#chunkBytes = chunkBytes;
    this.#buf = Buffer.allocUnsafe(chunkBytes);
  }

  view(offset, n) {
    const base = this.#base;
    if (offset >= base && offset + n <= base + this.#length) {
      return this.#buf.subarray(offset - base, offset - base + n);
    }
    if (offset + n > this.#size) throw new RangeError(`wasq FileStorage: read past the end of the log`);
    // Keep what is already here from `offset` on, at the front of the (maybe larger) buffer.
    const kept = offset >= base && offset < base + this.#length ? base + this.#length - offset : 0;
    let buf = this.#buf;
    if (n > buf.length) {
      buf = Buffer.allocUnsafe(n);
      if (kept > 0) this.#buf.copy(buf, 0, offset - base, offset - base + kept);
      this.#buf = buf;
    } else if (kept > 0) {
      buf.copyWithin(0, offset - base, offset - base + kept);
    }
    this.#base = offset;
    this.#length = kept;
    const fill = Math.min(buf.length, this.#size - offset);
    while (this.#length < n) {
      const want = Math.min(this.#chunkBytes, fill - this.#length);
      const got = fs.readSync(this.#fd, buf, this.#length, want, offset + this.#length);
      if (got === 0) throw new Error(`wasq FileStorage: the log ended early (changed while being read?)`);
      this.#length += got;
    }
    return buf.subarray(0, n);
  }
}

/**
 * Walk the records after the file header, calling `onRecord(payload, payloadOffset)` for each
 * whole one, and answer where the whole records end.
 *
 * What follows the last whole record is a torn tail when no whole record comes after it: a
 * record cut short by the end of the file, a bad last record (a crash can leave the size extended
 * before the data lands: zeros, or stale bytes), or bytes that are no record at all. The caller
 * drops it. Corruption with a whole record after it is refused: skipping it would silently lose
 * acknowledged batches.
 */
export function scanLog(reader, size, file, onRecord) {
  let records = 0;
  let at = FILE_HEADER_BYTES;
  while (size - at >= RECORD_HEAD_BYTES) {
    const head = reader.view(at, RECORD_HEAD_BYTES);
    const headOk = checksum(head.subarray(0, 12), 4).equals(head.subarray(12, 16));
    const end = at + RECORD_HEAD_BYTES + head.readUInt32LE(0);
    if (headOk) {
      if (end > size) break; // cut short by the end of the file
      const record = reader.view(at, end - at);
      if (checksum(record.subarray(RECORD_HEAD_BYTES), 8).equals(record.subarray(4, 12))) {
        onRecord(record.subarray(RECORD_HEAD_BYTES), at + RECORD_HEAD_BYTES);
        records++;
        at = end;
        continue;
      }
    }
    // A bad record. Its head, when whole, says where the next one starts; a damaged head says
    // nothing, so every later offset is tried.
    const next = wholeRecordAfter(reader, headOk ? end : at + 1, size);
    if (next >= 0) throw corrupt(file, at, headOk ? "record payload checksum mismatch" : "record header checksum mismatch", next);
    break;
  }
  return { validEnd: at, records };
}

/** The offset of the first whole record at or after `from`, or -1. */
function wholeRecordAfter(reader, from, size) {
  for (let at = from; size - at >= RECORD_HEAD_BYTES; at++) {
    const head = reader.view(at, RECORD_HEAD_BYTES);
    // No record starts with 16 zero bytes (its head checksum would have to be zero, and that of
    // an empty payload is not): a zero-filled tail is skipped to its next non-zero byte.
    if (head.every((b) => b === 0)) {
      at = Math.max(at, nextNonZero(reader, at + RECORD_HEAD_BYTES, size) - RECORD_HEAD_BYTES);
      continue;
    }
    const length = head.readUInt32LE(0);
    if (at + RECORD_HEAD_BYTES + length > size) continue;
    if (!checksum(head.subarray(0, 12), 4).equals(head.subarray(12, 16))) continue;
    const record = reader.view(at, RECORD_HEAD_BYTES + length);
    if (checksum(record.subarray(RECORD_HEAD_BYTES), 8).equals(record.subarray(4, 12))) return at;
  }
  return -1;
}

function corrupt(file, offset, why, next) {
  return new Error(
    `wasq FileStorage: ${file} is corrupt at byte ${offset} (${why}) with more records after it ` +
      `(a whole one at byte ${next}); refusing to open rather than drop committed data`,
  );
}

/** Whether bytes [from, to) of the file are all zero (a tail the file system extended but never wrote). */
export function isZeroRange(reader, from, to) {
  return nextNonZero(reader, from, to) === to;
}

/** The offset of the first non-zero byte in [from, to), or `to`. */
function nextNonZero(reader, from, to) {
  for (let at = from; at < to; ) {
    const n = Math.min(1 << 16, to - at);
    const bytes = reader.view(at, n);
    for (let i = 0; i < n; i++) if (bytes[i] !== 0) return at + i;
    at += n;
  }
  return to;
}

export function createEmptyLog(dir, logPath, tmpName) {
  // Through a rename, so a crash can never leave a log with a half-written header.
  const tmpPath = path.join(dir, tmpName);
  const fd = fs.openSync(tmpPath, "w");
  try {
    writeFully(fd, fileHeader(), 0);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmpPath, logPath);
  syncDir(dir);
}

export function writeFully(fd, buffer, position) {
  let done = 0;
  while (done < buffer.length) {
    done += fs.writeSync(fd, buffer, done, buffer.length - done, position + done);
  }
  return done;
}

export function syncDir(dir) {
  // Makes a rename durable. Some platforms (Windows) cannot open a directory; there the rename
  // is as durable as the OS makes it.
  let fd;
  try {
    fd = fs.openSync(dir, "r");
  } catch {
    return;
  }
  try {
    fs.fsyncSync(fd);
  } catch {
  } finally {
    fs.closeSync(fd);
  }
}
