import { ManualClock } from "../../../pkg/entry/node.js";
import { FakeSqs } from "./fake-sqs.js";

export { Consumer } from "../../../pkg/entry/node.js";
export { ManualClock };

/** Let every pending promise chain run (no real timers are involved anywhere in these tests). */
export async function settle(rounds = 20) {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Settle until `cond()` holds; fails loudly instead of hanging. */
export async function until(cond, what = "condition") {
  for (let i = 0; i < 500; i++) {
    if (cond()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`timed out waiting for ${what}`);
}

export function deferred() {
  let resolve;
  let reject;
  const promise = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export function fakeEnv({ fifo = false, visibilityTimeout = 30 } = {}) {
  const clock = new ManualClock(1_000_000);
  const sqs = new FakeSqs(clock, { fifo, visibilityTimeout });
  return { engine: sqs, clock, queueUrl: sqs.queueUrl, send: (body, group) => sqs.send(body, group), sqs };
}

/** Advance the clock in steps, letting the consumer react between steps. */
export async function advance(clock, totalMs, stepMs = 1000) {
  for (let done = 0; done < totalMs; done += stepMs) {
    clock.advance(Math.min(stepMs, totalMs - done));
    await settle(5);
  }
}
