// Pending long polls. A poll waits for a *later* operation, tick or clock change to make its
// queue receivable (never re-checked on registration, so an empty receive can't spin), or for its
// deadline on the engine's clock, or for its AbortSignal.

export class Waiters {
  #pending = new Set();

  /** A promise that resolves when the waiter is woken and rejects on abort or close. */
  add(queueUrl, context, deadline, signal) {
    return new Promise((resolve, reject) => {
      signal?.throwIfAborted();
      // The answer of receivable() depends on the URL and the context's region only (which
      // region's engine): polls with the same key share one check.
      const key = context?.region === undefined ? queueUrl : `${queueUrl}\0${context.region}`;
      const waiter = { queueUrl, context, key, deadline, wake: null, fail: null };
      const onAbort = () => waiter.fail(signal.reason);
      const settle = () => {
        this.#pending.delete(waiter);
        signal?.removeEventListener("abort", onAbort);
      };
      waiter.wake = () => {
        settle();
        resolve();
      };
      waiter.fail = (err) => {
        settle();
        reject(err);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#pending.add(waiter);
    });
  }

  /**
   * Waiters that may proceed at `now`: deadline reached, or `receivable(url, ctx)` true. A
   * receivable() that throws (the queue was deleted meanwhile) also releases the waiter, so that
   * its next receive reports the error.
   */
  ready(now, receivable) {
    const out = [];
    // One check per queue, not per poll: 3,000 polls on one queue made every call of the
    // engine, on any queue, cross into the wasm 3,000 times (~40 ms a call instead of ~0.6).
    // And one poll woken per receivable queue, the longest waiting: its receive is a call too,
    // which wakes the next while the queue is still receivable, so a send wakes as many polls as
    // it can feed instead of every poll on the queue (each of which received, mostly for nothing).
    // A queue whose check throws (deleted meanwhile) releases all its polls, to report the error.
    const checked = new Map(); // key -> "one" (wake the next), false, or "all"
    for (const waiter of this.#pending) {
      let go = now >= waiter.deadline;
      if (!go) {
        let state = checked.get(waiter.key);
        if (state === undefined) {
          try {
            state = receivable(waiter.queueUrl, waiter.context) ? "one" : false;
          } catch {
            state = "all";
          }
        }
        go = state !== false;
        checked.set(waiter.key, state === "one" ? false : state);
      }
      if (go) out.push(waiter);
    }
    return out;
  }

  /** How many polls are waiting (the engine skips the checks when none are). */
  get size() {
    return this.#pending.size;
  }

  /** Whether some pending poll's queue URL passes `test(queueUrl)`. */
  some(test) {
    for (const waiter of this.#pending) if (test(waiter.queueUrl)) return true;
    return false;
  }

  earliestDeadline() {
    let min;
    for (const waiter of this.#pending) {
      if (min === undefined || waiter.deadline < min) min = waiter.deadline;
    }
    return min;
  }

  rejectAll(err) {
    for (const waiter of [...this.#pending]) waiter.fail(err);
  }
}
