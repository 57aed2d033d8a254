// Clocks give the engine its notion of "now" (epoch milliseconds). The engine never reads time
// itself, so tests can step hours of visibility timeouts instantly with a ManualClock.

/** Wall-clock time (`Date.now()`). Engines on this clock use one re-armed `setTimeout`. */
export class SystemClock {
  now() {
    return Date.now();
  }
}

// The engine takes clock readings up to Number.MAX_SAFE_INTEGER ms (about 285,000 years from
// 1970): past it, milliseconds are no longer exact.
function checkMillis(value, what) {
  if (typeof value !== "number" || !(value >= 0 && value <= Number.MAX_SAFE_INTEGER)) {
    throw new RangeError(`${what} must be a non-negative number of milliseconds up to Number.MAX_SAFE_INTEGER, got ${value}`);
  }
}

/**
 * Time that moves only when told to. Engines subscribe to it: `advance()` / `set()` apply
 * everything that falls due (visibility timeouts, delays, long-poll waits) synchronously,
 * before they return.
 */
export class ManualClock {
  #now;
  #listeners = new Set();

  /** @param {number} [start] epoch ms; default 0 */
  constructor(start = 0) {
    checkMillis(start, "ManualClock start");
    this.#now = start;
  }

  now() {
    return this.#now;
  }

  /** Move forward by `ms` milliseconds. */
  advance(ms) {
    checkMillis(ms, "ManualClock.advance(ms)");
    // Checked here too, so that the message names advance() and its argument.
    checkMillis(this.#now + ms, `ManualClock.advance(${ms}) from ${this.#now}: the time reached`);
    this.set(this.#now + ms);
  }

  /** Jump to `ms` (epoch ms). Time never goes backwards: an earlier value throws a RangeError. */
  set(ms) {
    checkMillis(ms, "ManualClock.set(ms)");
    if (ms < this.#now) {
      throw new RangeError(`ManualClock cannot go back in time (now ${this.#now}, asked ${ms})`);
    }
    this.#now = ms;
    // Every subscriber runs even if one throws, so one engine's storage failure cannot stall
    // another engine's timeouts; the first failure is rethrown to the caller of advance/set.
    let failure = null;
    for (const listener of [...this.#listeners]) {
      try {
        listener(ms);
      } catch (err) {
        failure ??= { err };
      }
    }
    if (failure) throw failure.err;
  }

  /** Call `listener(now)` after every change; returns the function that unsubscribes. */
  subscribe(listener) {
    if (typeof listener !== "function") throw new TypeError("ManualClock.subscribe needs a function");
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
