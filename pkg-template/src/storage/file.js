// Node storage: an append-only log in one file, one checksummed record per commit batch.
//
// Why a log and not a file per key: a batch must become durable all at once, and the only
// all-or-nothing primitives a file system offers are "the bytes up to here were synced" and
// rename. One record per batch plus a checksum turns the first into batch atomicity: after a
// crash the log is a run of whole records followed by at most one torn one, which recovery
// cuts off. The log is rewritten (compacted) through the second primitive, rename.
//
// File layout (integers little-endian):
//   header  16 bytes: magic "WASQLOG\n", u32 format version, u32 reserved (0)
//   record  16-byte head: u32 payload length, 8 bytes SHA-256(payload) prefix,
//           4 bytes SHA-256(first 12 head bytes) prefix; then the payload
//   payload u8 kind (1 = batch), u32 puts, u32 dels, puts as (u32 key len, key UTF-8,
//           u32 value len, value), dels as (u32 key len, key UTF-8)

import * as fs from "node:fs";
import * as path from "node:path";
import { createHash } from "node:crypto";
import { checkBatch, LOAD_PACKED, PACKED_LOADS, packRecords } from "./batch.js";

export const FILE_FORMAT_VERSION = 1;
const MAGIC = Buffer.from("WASQLOG\n", "latin1");
const FILE_HEADER_BYTES = 16;
const RECORD_HEAD_BYTES = 16;
const KIND_BATCH = 1;
const LOG_NAME = "wasq.log";
const TMP_NAME = "wasq.log.tmp";
const LOCK_NAME = "LOCK";
// Compaction writes the live state as several records so no single buffer has to hold it all.
const COMPACT_CHUNK_BYTES = 4 << 20;

export class FileStorage {
  #dir;
  #logPath;
  #lockPath;
  #fd = -1;
  #fsync;
  #compactRatio;
  #compactMinBytes;
  #records = new Map();
  #liveBytes = 0;
  #logBytes = 0;
  #recovery;
  #lastCompactionError = null;
  #compactions = 0;
  // fsync: "group" (see the constructor): whether anything was written since the last sync
  // began, the sync running now, and the callers waiting for the one after it.
  #unsynced = false;
  #syncing = null;
  #nextSync = null;
  #syncs = 0;
  #syncError = null;

  /**
   * Open (creating if needed) the log in `dir`. Synchronous, so it can back an Engine
   * constructed synchronously.
   * @param {string} dir
   * @param {{ fsync?: boolean | "group", compactRatio?: number, compactMinBytes?: number, lock?: boolean }} [options]
   *   fsync: true (the default) syncs every commit before it returns. "group" writes each commit
   *   before it returns (a killed process loses nothing) and makes flush() resolve once a sync
   *   begun after the call has finished; flushes that overlap share one sync, so a server
   *   answering many requests at once pays one sync per round rather than one per request. Its
   *   durability is "full": the Engine's asynchronous answers (HTTP handlers, receiveMessage)
   *   wait for that sync, while a synchronous dispatch() returns before it. false ("relaxed")
   *   syncs only in flush() and close().
   *   compactRatio / compactMinBytes: rewrite the log when it is larger than both
   *   compactRatio × live data (default 4) and compactMinBytes (default 1 MiB).
   *   lock: refuse a directory another live process has open (default true).
   */
  constructor(dir, { fsync = true, compactRatio = 4, compactMinBytes = 1 << 20, lock = true } = {}) {
    if (typeof dir !== "string" || dir === "") throw new TypeError("FileStorage needs a directory path");
    if (!(compactRatio > 1)) throw new RangeError("FileStorage: compactRatio must be greater than 1");
    if (fsync !== true && fsync !== false && fsync !== "group") {
      throw new TypeError('FileStorage: fsync must be true, false or "group"');
    }
    this.#dir = dir;
    this.#logPath = path.join(dir, LOG_NAME);
    this.#lockPath = lock ? path.join(dir, LOCK_NAME) : null;
    this.#fsync = fsync;
    this.#compactRatio = compactRatio;
    this.#compactMinBytes = compactMinBytes;

    fs.mkdirSync(dir, { recursive: true });
    if (this.#lockPath) acquireLock(this.#lockPath, dir);
    try {
      this.#open();
    } catch (err) {
      if (this.#fd >= 0) fs.closeSync(this.#fd);
      this.#fd = -1;
      if (this.#lockPath) releaseLock(this.#lockPath);
      throw err;
    }
  }

  get durability() {
    return this.#fsync === false ? "relaxed" : "full";
  }

  /** What opening found: bytes of torn tail dropped (0 on a clean log) and records replayed. */
  get recovery() {
    return this.#recovery;
  }

  /** Current log size and live data size in bytes, and how many compactions ran since open. */
  get stats() {
    return {
      logBytes: this.#logBytes,
      liveBytes: this.#liveBytes,
      records: this.#records.size,
      compactions: this.#compactions,
      lastCompactionError: this.#lastCompactionError,
      syncs: this.#syncs,
    };
  }

  loadAll() {
    this.#checkOpen();
    return Array.from(this.#records, ([key, value]) => [key, Uint8Array.from(value)]);
  }

  /** For the Engine (see batch.js): loadAll() without its copies, written where it says. */
  [LOAD_PACKED](into) {
    this.#checkOpen();
    return packRecords(this.#records, into);
  }

  commit(batch) {
    this.#checkOpen();
    // After a failed sync the kernel may have dropped written pages: nothing more is accepted.
    if (this.#syncError) throw this.#syncError;
    const { put, del } = checkBatch(batch);
    if (put.length === 0 && del.length === 0) return;
    const record = encodeRecord(encodeBatch(put, del));
    const at = this.#logBytes;
    try {
      writeFully(this.#fd, record, at);
      if (this.#fsync === true) fs.fdatasyncSync(this.#fd);
      else this.#unsynced = true;
    } catch (err) {
      // Cut off whatever part of the record reached the file, so the next append does not
      // land behind garbage; if even that fails, recovery on the next open drops it.
      try {
        fs.ftruncateSync(this.#fd, at);
      } catch {}
      throw err;
    }
    this.#logBytes = at + record.length;
    for (const [key, value] of put) this.#set(key, Uint8Array.from(value));
    for (const key of del) this.#delete(key);
    if (this.#logBytes > this.#compactMinBytes && this.#logBytes > this.#compactRatio * this.#liveBytes) {
      // The batch is already durable, so a failed compaction must not turn this commit into an
      // error; the old log stays valid and the next commit tries again.
      try {
        this.compact();
      } catch (err) {
        this.#lastCompactionError = err;
      }
    }
  }

  /** Resolves once everything committed so far is on disk (immediate with fsync: true). */
  async flush() {
    this.#checkOpen();
    if (this.#syncError) throw this.#syncError;
    if (this.#fsync === false) {
      fs.fdatasyncSync(this.#fd);
      this.#unsynced = false;
    } else if (this.#fsync === "group") {
      return this.#groupSync();
    }
  }

  /**
   * A sync that covers every write made before this call. Writes made before the running sync
   * began are covered by it; later ones wait for the next, which starts when the running one
   * ends and covers everything written until then.
   */
  #groupSync() {
    if (!this.#unsynced) return this.#syncing ?? Promise.resolve();
    if (!this.#syncing) return this.#startSync();
    if (!this.#nextSync) {
      let resolve, reject;
      const promise = new Promise((ok, fail) => ((resolve = ok), (reject = fail)));
      this.#nextSync = { promise, resolve, reject };
    }
    return this.#nextSync.promise;
  }

  #startSync() {
    this.#unsynced = false;
    this.#syncs++;
    const syncing = new Promise((resolve, reject) => {
      // A descriptor of its own: the log's may be closed (close()) or replaced (compact())
      // while this sync runs in the thread pool. Syncing any descriptor of the file syncs the
      // file; a compaction in between has synced the new log itself.
      const fail = (err) => {
        // Every waiter, now and later, gets the same error: the first one is the reason.
        this.#syncError ??= Object.assign(new Error(`wasq FileStorage: syncing ${this.#logPath} failed: ${err.message}`), {
          cause: err,
        });
        reject(this.#syncError);
      };
      let fd;
      try {
        fd = fs.openSync(this.#logPath, "r");
      } catch (err) {
        fail(err);
        return;
      }
      fs.fdatasync(fd, (err) => {
        fs.close(fd, () => {});
        if (err) fail(err);
        else resolve();
      });
    });
    this.#syncing = syncing;
    syncing.then(
      () => this.#afterSync(),
      () => this.#afterSync(),
    );
    return syncing;
  }

  #afterSync() {
    this.#syncing = null;
    const next = this.#nextSync;
    this.#nextSync = null;
    if (!next) return;
    if (this.#syncError) next.reject(this.#syncError);
    else if (this.#fd < 0) next.resolve(); // close() synced everything before closing
    else this.#startSync().then(next.resolve, next.reject);
  }

  /** Rewrite the log to hold only the live records: new file, fsync, atomic rename, fsync dir. */
  compact() {
    this.#checkOpen();
    const tmpPath = path.join(this.#dir, TMP_NAME);
    const fd = fs.openSync(tmpPath, "w");
    let size = 0;
    try {
      size = writeFully(fd, fileHeader(), 0);
      let chunk = [];
      let chunkBytes = 0;
      const emit = () => {
        if (chunk.length === 0) return;
        const record = encodeRecord(encodeBatch(chunk, []));
        size += writeFully(fd, record, size);
        chunk = [];
        chunkBytes = 0;
      };
      for (const entry of this.#records) {
        chunk.push(entry);
        chunkBytes += entry[0].length * 3 + entry[1].length + 8;
        if (chunkBytes >= COMPACT_CHUNK_BYTES) emit();
      }
      emit();
      fs.fsyncSync(fd);
    } catch (err) {
      fs.closeSync(fd);
      fs.rmSync(tmpPath, { force: true });
      throw err;
    }
    fs.closeSync(fd);
    fs.renameSync(tmpPath, this.#logPath);
    syncDir(this.#dir);
    fs.closeSync(this.#fd);
    this.#fd = fs.openSync(this.#logPath, "r+");
    this.#logBytes = size;
    this.#compactions++;
    this.#lastCompactionError = null;
  }

  close() {
    if (this.#fd < 0) return;
    if (this.#fsync !== true && this.#unsynced) fs.fdatasyncSync(this.#fd);
    this.#unsynced = false;
    fs.closeSync(this.#fd);
    this.#fd = -1;
    if (this.#lockPath) releaseLock(this.#lockPath);
  }

  #checkOpen() {
    if (this.#fd < 0) throw new Error(`wasq FileStorage: ${this.#dir} is closed`);
  }

  #set(key, value) {
    const old = this.#records.get(key);
    if (old) this.#liveBytes -= entryBytes(key, old);
    this.#records.set(key, value);
    this.#liveBytes += entryBytes(key, value);
  }

  #delete(key) {
    const old = this.#records.get(key);
    if (!old) return;
    this.#liveBytes -= entryBytes(key, old);
    this.#records.delete(key);
  }

  #open() {
    // A leftover from a compaction that crashed before its rename: the log itself is intact.
    fs.rmSync(path.join(this.#dir, TMP_NAME), { force: true });
    if (!fs.existsSync(this.#logPath)) createEmptyLog(this.#dir, this.#logPath);
    const bytes = fs.readFileSync(this.#logPath);
    checkFileHeader(bytes, this.#logPath);
    const { validEnd, records } = scanRecords(bytes, this.#logPath);
    for (const payload of records) {
      const { put, del } = decodeBatch(payload, this.#logPath);
      for (const [key, value] of put) this.#set(key, value);
      for (const key of del) this.#delete(key);
    }
    this.#fd = fs.openSync(this.#logPath, "r+");
    if (validEnd < bytes.length) {
      fs.ftruncateSync(this.#fd, validEnd);
      fs.fsyncSync(this.#fd);
    }
    this.#logBytes = validEnd;
    this.#recovery = { droppedBytes: bytes.length - validEnd, records: records.length };
  }
}

function entryBytes(key, value) {
  return key.length + value.length + 8;
}

function checksum(bytes, length) {
  return createHash("sha256").update(bytes).digest().subarray(0, length);
}

function fileHeader() {
  const header = Buffer.alloc(FILE_HEADER_BYTES);
  MAGIC.copy(header, 0);
  header.writeUInt32LE(FILE_FORMAT_VERSION, 8);
  return header;
}

function checkFileHeader(bytes, file) {
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

function createEmptyLog(dir, logPath) {
  // Through a rename, so a crash can never leave a log with a half-written header.
  const tmpPath = path.join(dir, TMP_NAME);
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

function encodeRecord(payload) {
  const record = Buffer.allocUnsafe(RECORD_HEAD_BYTES + payload.length);
  record.writeUInt32LE(payload.length, 0);
  checksum(payload, 8).copy(record, 4);
  checksum(record.subarray(0, 12), 4).copy(record, 12);
  payload.copy(record, RECORD_HEAD_BYTES);
  return record;
}

/**
 * Walk the records after the file header. Returns the payloads of the whole records and where
 * they end. A record cut short by the end of the file is a torn write and ends the log; so is a
 * bad last record whose bytes run exactly to the end of the file (a crash can leave the size
 * extended before the data lands). Anything else that fails its checksum is corruption in the
 * middle of the log, and is refused: skipping it would silently lose acknowledged batches.
 */
function scanRecords(bytes, file) {
  const records = [];
  let at = FILE_HEADER_BYTES;
  while (at < bytes.length) {
    const remaining = bytes.length - at;
    if (remaining < RECORD_HEAD_BYTES) break;
    const head = bytes.subarray(at, at + RECORD_HEAD_BYTES);
    const headOk = checksum(head.subarray(0, 12), 4).equals(head.subarray(12, 16));
    if (!headOk) {
      if (isAllZero(bytes.subarray(at))) break;
      throw corrupt(file, at, "record header checksum mismatch");
    }
    const length = head.readUInt32LE(0);
    const end = at + RECORD_HEAD_BYTES + length;
    if (end > bytes.length) break;
    const payload = bytes.subarray(at + RECORD_HEAD_BYTES, end);
    if (!checksum(payload, 8).equals(head.subarray(4, 12))) {
      if (end === bytes.length) break;
      throw corrupt(file, at, "record payload checksum mismatch");
    }
    records.push(payload);
    at = end;
  }
  return { validEnd: at, records };
}

function isAllZero(bytes) {
  for (const b of bytes) if (b !== 0) return false;
  return true;
}

function corrupt(file, offset, why) {
  return new Error(
    `wasq FileStorage: ${file} is corrupt at byte ${offset} (${why}) with more records after it; ` +
      `refusing to open rather than drop committed data`,
  );
}

function encodeBatch(put, del) {
  const encoder = new TextEncoder();
  const putKeys = put.map(([key]) => encoder.encode(key));
  const delKeys = del.map((key) => encoder.encode(key));
  let size = 9;
  put.forEach(([, value], i) => (size += 8 + putKeys[i].length + value.length));
  for (const key of delKeys) size += 4 + key.length;
  const out = Buffer.allocUnsafe(size);
  out[0] = KIND_BATCH;
  out.writeUInt32LE(put.length, 1);
  out.writeUInt32LE(del.length, 5);
  let at = 9;
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
  return out;
}

function decodeBatch(payload, file) {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let at = 0;
  const need = (n) => {
    if (at + n > payload.length) throw new Error(`wasq FileStorage: ${file} holds a malformed batch record`);
  };
  need(9);
  if (payload[0] !== KIND_BATCH) {
    throw new Error(`wasq FileStorage: ${file} holds a record of unknown kind ${payload[0]}`);
  }
  const puts = payload.readUInt32LE(1);
  const dels = payload.readUInt32LE(5);
  at = 9;
  const readBytes = () => {
    need(4);
    const length = payload.readUInt32LE(at);
    at += 4;
    need(length);
    const bytes = payload.subarray(at, at + length);
    at += length;
    return bytes;
  };
  const put = [];
  const del = [];
  for (let i = 0; i < puts; i++) {
    const key = decoder.decode(readBytes());
    put.push([key, Uint8Array.from(readBytes())]);
  }
  for (let i = 0; i < dels; i++) del.push(decoder.decode(readBytes()));
  if (at !== payload.length) throw new Error(`wasq FileStorage: ${file} holds a malformed batch record`);
  return { put, del };
}

function writeFully(fd, buffer, position) {
  let done = 0;
  while (done < buffer.length) {
    done += fs.writeSync(fd, buffer, done, buffer.length - done, position + done);
  }
  return done;
}

function syncDir(dir) {
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

/**
 * When this process started (epoch ms; the same in every worker thread). The lock names it beside
 * the pid: a lock with this process's pid but another start time was left by an earlier process
 * that had the same pid — a container restarted after a crash, whose entrypoint is pid 1 again —
 * and is stale, where the pid alone made it look "already open" forever.
 */
function processStart() {
  // Taken once: a wall-clock step later in a long-lived process (a VM resumed, the date set)
  // would otherwise make its own lock look like an earlier process's.
  return (startedAt ??= Math.round(Date.now() - process.uptime() * 1000));
}
let startedAt;

/** Two readings of processStart() differ by clock jitter only; another process starts later. */
const SAME_START_MS = 250;

function parseLock(text) {
  const [pid, start] = text.trim().split(/\s+/).map((n) => Number.parseInt(n, 10));
  return { pid, start: Number.isInteger(start) ? start : undefined };
}

function acquireLock(lockPath, dir) {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = fs.openSync(lockPath, "wx");
      fs.writeSync(fd, `${process.pid} ${processStart()}\n`);
      fs.closeSync(fd);
      return;
    } catch (err) {
      if (err.code !== "EEXIST") throw err;
    }
    const { pid: holder, start } = parseLock(readOr(lockPath, ""));
    const earlierIncarnation =
      holder === process.pid && start !== undefined && Math.abs(start - processStart()) > SAME_START_MS;
    if (Number.isInteger(holder) && holder > 0 && !earlierIncarnation && processAlive(holder)) {
      throw new Error(`wasq FileStorage: ${dir} is already open in process ${holder} (lock file ${lockPath})`);
    }
    // The holder died without closing: take the lock over. Unlink then create-exclusive, so of
    // two processes doing this at once only one wins.
    fs.rmSync(lockPath, { force: true });
  }
  throw new Error(`wasq FileStorage: could not take the lock ${lockPath}`);
}

function releaseLock(lockPath) {
  const { pid, start } = parseLock(readOr(lockPath, ""));
  if (pid !== process.pid) return;
  if (start !== undefined && Math.abs(start - processStart()) > SAME_START_MS) return;
  fs.rmSync(lockPath, { force: true });
}

function readOr(file, fallback) {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return fallback;
  }
}

/**
 * Whether the lock holder still runs. A process that was killed but not yet reaped by its parent
 * (a zombie: a test harness's `Popen.kill()` before `wait()`, a container whose pid 1 reaps
 * late) still answers `kill(pid, 0)`, yet holds no file and never runs again: its lock is stale,
 * and a restart right after the kill must not be refused for as long as the zombie lingers.
 */
function processAlive(pid) {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return err.code === "EPERM";
  }
  return !isZombie(pid);
}

/** Linux: the state field of /proc/<pid>/stat, after the command name's closing parenthesis. */
function isZombie(pid) {
  const stat = readOr(`/proc/${pid}/stat`, "");
  const state = stat.slice(stat.lastIndexOf(")") + 1).trim()[0];
  return state === "Z" || state === "X";
}

PACKED_LOADS.add(FileStorage.prototype.loadAll);
