// The lock that keeps a second process (or worker thread) from opening a FileStorage directory
// that is already open: `dir/LOCK` holds the owner's pid and start time, and a lock whose owner
// is gone (dead, a zombie, or an earlier process that had the same pid) is taken over.

import * as fs from "node:fs";

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

export function acquireLock(lockPath, dir) {
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

export function releaseLock(lockPath) {
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
