// Node storage: an append-only log in one file, one checksummed record per commit batch.
//
// Why a log and not a file per key: a batch must become durable all at once, and the only
// all-or-nothing primitives a file system offers are "the bytes up to here were synced" and
// rename. One record per batch plus a checksum turns the first into batch atomicity: after a
// crash the log is a run of whole records followed by at most one torn one, which recovery
// cuts off. The log is rewritten (compacted) through the second primitive, rename.
//
// The bytes are described in file-format.js. In memory the store keeps only where each live
// entry lies in the file (file-index.js): restores and compactions read the values back from it.

import * as fs from "node:fs";
import * as path from "node:path";
import { checkBatch, LOAD_PACKED, PACKED_LOADS } from "./batch.js";
import {
  FILE_HEADER_BYTES,
  FIRST_ENTRY,
  LogReader,
  checkFileHeader,
  createEmptyLog,
  encodeBatchRecord,
  fileHeader,
  isZeroRange,
  scanLog,
  sealBatchRecord,
  syncDir,
  walkBatch,
  writeFully,
} from "./file-format.js";
import { EntryIndex } from "./file-index.js";
import { acquireLock, releaseLock } from "./file-lock.js";

export { FILE_FORMAT_VERSION } from "./file-format.js";

const LOG_NAME = "wasq.log";
const TMP_NAME = "wasq.log.tmp";
const LOCK_NAME = "LOCK";
// Compaction writes the live state as several records so no single buffer has to hold it all.
const COMPACT_CHUNK_BYTES = 4 << 20;
// Reads (opening, restoring, compacting) go through one buffer of this size: a log of any size
// is read in bounded memory.
const READ_CHUNK_BYTES = 4 << 20;
const keyDecoder = new TextDecoder("utf-8", { fatal: true });

export class FileStorage {
  #dir;
  #logPath;
  #lockPath;
  #fd = -1;
  #fsync;
  #compactRatio;
  #compactMinBytes;
  #readChunkBytes;
  #warn;
  #index = new EntryIndex((offset, size) => this.#keyAt(offset, size));
  #keyBuffer = Buffer.allocUnsafe(256);
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
   * @param {{ fsync?: boolean | "group", compactRatio?: number, compactMinBytes?: number, lock?: boolean,
   *   readChunkBytes?: number, warn?: (message: string) => void }} [options]
   *   fsync: true (the default) syncs every commit before it returns. "group" writes each commit
   *   before it returns (a killed process loses nothing) and makes flush() resolve once a sync
   *   begun after the call has finished; flushes that overlap share one sync, so a server
   *   answering many requests at once pays one sync per round rather than one per request. Its
   *   durability is "full": the Engine's asynchronous answers (HTTP handlers, receiveMessage)
   *   wait for that sync, while a synchronous dispatch() returns before it. false ("relaxed")
   *   syncs only in flush() and close().
   *   compactRatio / compactMinBytes: rewrite the log when it is larger than
   *   compactRatio × live data (default 2) + compactMinBytes (default 1 MiB).
   *   lock: refuse a directory another live process has open (default true).
   *   readChunkBytes: the most read from the file at once (default 4 MiB).
   *   warn: told what recovery dropped when opening a log with a torn tail (default console.warn).
   */
  constructor(
    dir,
    {
      fsync = true,
      compactRatio = 2,
      compactMinBytes = 1 << 20,
      lock = true,
      readChunkBytes = READ_CHUNK_BYTES,
      warn = console.warn,
    } = {},
  ) {
    if (typeof dir !== "string" || dir === "") throw new TypeError("FileStorage needs a directory path");
    if (!(compactRatio > 1)) throw new RangeError("FileStorage: compactRatio must be greater than 1");
    if (!(compactMinBytes >= 0)) throw new RangeError("FileStorage: compactMinBytes must be 0 or more");
    if (!Number.isSafeInteger(readChunkBytes) || readChunkBytes < 1) {
      throw new RangeError("FileStorage: readChunkBytes must be a positive integer");
    }
    if (typeof warn !== "function") throw new TypeError("FileStorage: warn must be a function");
    if (fsync !== true && fsync !== false && fsync !== "group") {
      throw new TypeError('FileStorage: fsync must be true, false or "group"');
    }
    this.#dir = dir;
    this.#logPath = path.join(dir, LOG_NAME);
    this.#lockPath = lock ? path.join(dir, LOCK_NAME) : null;
    this.#fsync = fsync;
    this.#compactRatio = compactRatio;
    this.#compactMinBytes = compactMinBytes;
    this.#readChunkBytes = readChunkBytes;
    this.#warn = warn;

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

  /**
   * What opening found: the bytes of a torn tail dropped (0 on a clean log), how many records
   * they held (0 or 1: the tail has no whole record after it, and a tail of zeros holds none),
   * and the whole records replayed.
   */
  get recovery() {
    return this.#recovery;
  }

  /** Current log size and live data size in bytes, and how many compactions ran since open. */
  get stats() {
    return {
      logBytes: this.#logBytes,
      liveBytes: this.#index.liveBytes,
      records: this.#index.count,
      compactions: this.#compactions,
      lastCompactionError: this.#lastCompactionError,
      syncs: this.#syncs,
    };
  }

  loadAll() {
    this.#checkOpen();
    const records = [];
    this.#forEachLive((entry) => {
      const keyEnd = 4 + entry.readUInt32LE(0);
      // new Uint8Array(view) copies: the view is the read buffer's, reused for the next entry.
      records.push([keyDecoder.decode(entry.subarray(4, keyEnd)), new Uint8Array(entry.subarray(keyEnd + 4))]);
    });
    return records;
  }

  /**
   * For the Engine (see batch.js): loadAll() without its copies, written where it says. A log
   * entry is already in the records layout, so each is copied from the file as it stands.
   */
  [LOAD_PACKED](into) {
    this.#checkOpen();
    const size = this.#index.liveBytes;
    if (size === 0) return undefined;
    const out = into(size);
    let at = 0;
    this.#forEachLive((entry) => {
      out.set(entry, at);
      at += entry.length;
    });
    return out;
  }

  commit(batch) {
    this.#checkOpen();
    // After a failed sync the kernel may have dropped written pages: nothing more is accepted.
    if (this.#syncError) throw this.#syncError;
    const { put, del } = checkBatch(batch);
    if (put.length === 0 && del.length === 0) return;
    const { record, sizes } = encodeBatchRecord(put, del);
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
    const index = this.#index;
    let entry = at + FIRST_ENTRY;
    for (let i = 0; i < put.length; i++) {
      index.set(put[i][0], entry, sizes[i]);
      entry += sizes[i];
    }
    for (const key of del) index.delete(key);
    if (this.#logBytes > this.#compactRatio * index.liveBytes + this.#compactMinBytes) {
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

  /**
   * Rewrite the log to hold only the live records: new file, fsync, atomic rename, fsync dir.
   * The live entries are read from the log itself, in file order.
   */
  compact() {
    this.#checkOpen();
    const index = this.#index;
    const slots = index.inFileOrder();
    // Where each entry lands in the new log; the index moves there only once the rename is done.
    const offsets = new Float64Array(slots.length);
    const tmpPath = path.join(this.#dir, TMP_NAME);
    const fd = fs.openSync(tmpPath, "w");
    let size = 0;
    try {
      size = writeFully(fd, fileHeader(), 0);
      let buf = Buffer.allocUnsafe(FIRST_ENTRY + COMPACT_CHUNK_BYTES);
      let end = FIRST_ENTRY;
      let puts = 0;
      const emit = () => {
        size += writeFully(fd, sealBatchRecord(buf, end, puts, 0), size);
        end = FIRST_ENTRY;
        puts = 0;
      };
      const reader = new LogReader(this.#fd, this.#logBytes, this.#readChunkBytes);
      for (let i = 0; i < slots.length; i++) {
        const n = index.size(slots[i]);
        if (puts > 0 && end + n > buf.length) emit();
        if (FIRST_ENTRY + n > buf.length) buf = Buffer.allocUnsafe(FIRST_ENTRY + n);
        reader.view(index.offset(slots[i]), n).copy(buf, end);
        offsets[i] = size + end;
        end += n;
        puts++;
      }
      if (puts > 0) emit();
      fs.fsyncSync(fd);
    } catch (err) {
      fs.closeSync(fd);
      fs.rmSync(tmpPath, { force: true });
      throw err;
    }
    fs.closeSync(fd);
    fs.renameSync(tmpPath, this.#logPath);
    syncDir(this.#dir);
    index.moveAll(slots, offsets);
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

  /**
   * The key bytes of the entry at `offset` (of `size` bytes), for the index to compare keys
   * with: a view of a reused buffer, read like every read of the log, at most readChunkBytes
   * at a time.
   */
  #keyAt(offset, size) {
    let buf = this.#keyBuffer;
    const first = Math.min(size, buf.length);
    this.#readInto(buf, 0, first, offset);
    const end = 4 + buf.readUInt32LE(0);
    if (end > first) {
      if (end > buf.length) {
        const bigger = Buffer.allocUnsafe(end);
        buf.copy(bigger, 0, 0, first);
        this.#keyBuffer = buf = bigger;
      }
      this.#readInto(buf, first, end - first, offset + first);
    }
    return buf.subarray(4, end);
  }

  #readInto(buf, at, n, position) {
    for (let done = 0; done < n; ) {
      const got = fs.readSync(this.#fd, buf, at + done, Math.min(this.#readChunkBytes, n - done), position + done);
      if (got === 0) throw new Error(`wasq FileStorage: ${this.#logPath} ended early (changed while open?)`);
      done += got;
    }
  }

  /** `fn(entry)` for every live entry, in file order; `entry` is a view valid during the call. */
  #forEachLive(fn) {
    const index = this.#index;
    const reader = new LogReader(this.#fd, this.#logBytes, this.#readChunkBytes);
    for (const slot of index.inFileOrder()) fn(reader.view(index.offset(slot), index.size(slot)));
  }

  #open() {
    // A leftover from a compaction that crashed before its rename: the log itself is intact.
    fs.rmSync(path.join(this.#dir, TMP_NAME), { force: true });
    if (!fs.existsSync(this.#logPath)) createEmptyLog(this.#dir, this.#logPath, TMP_NAME);
    const file = this.#logPath;
    // Opened for writing from the start, but nothing is written unless the whole log is
    // accepted: a refused log stays as it was.
    this.#fd = fs.openSync(file, "r+");
    const size = fs.fstatSync(this.#fd).size;
    const reader = new LogReader(this.#fd, size, this.#readChunkBytes);
    checkFileHeader(size < FILE_HEADER_BYTES ? Buffer.alloc(0) : reader.view(0, FILE_HEADER_BYTES), file);
    const index = this.#index;
    const { validEnd, records } = scanLog(reader, size, file, (payload, payloadAt) =>
      walkBatch(
        payload,
        file,
        (key, start, n) => index.set(keyDecoder.decode(key), payloadAt + start, n),
        (key) => index.delete(keyDecoder.decode(key)),
      ),
    );
    const droppedBytes = size - validEnd;
    const droppedRecords = droppedBytes > 0 && !isZeroRange(reader, validEnd, size) ? 1 : 0;
    if (droppedBytes > 0) {
      fs.ftruncateSync(this.#fd, validEnd);
      fs.fsyncSync(this.#fd);
      // Right after a crash this is expected (the last write was cut short, and was never
      // acknowledged with fsync on), but a damaged disk looks the same: whoever runs the store
      // must be able to tell that something was dropped, and how much.
      const what =
        droppedRecords === 0
          ? `${droppedBytes} zero bytes (space the file system extended but never wrote)`
          : `a torn last record: ${droppedBytes} bytes that are not a whole record, with none after them`;
      this.#warn(
        `wasq FileStorage: ${file}: dropped ${what}, from byte ${validEnd} on; kept the ${records} whole records before it`,
      );
    }
    this.#logBytes = validEnd;
    this.#recovery = { droppedBytes, droppedRecords, records };
  }
}

PACKED_LOADS.add(FileStorage.prototype.loadAll);
