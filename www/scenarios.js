// Guided scenarios, each taken from the Amazon SQS Developer Guide. A scenario is data (the format
// is documented in README.md, "Writing a scenario"): an id, a title, a source, and steps of a
// caption plus actions (the action log's own arrays, see playground.js). Step 0 is the setup shown
// when the scenario is picked, and `?scenario=<id>&step=<n>` replays steps 0..n. `expectError`
// names the SQS error a step is meant to show. An author's scenario, passed to the page
// (`?scenario-src=`) or to <wasq-playground>, is checked by `validateScenario` below, as the
// built-in ones are by the page tests.

import { REALISM_KNOBS } from "./playground.js";

const S = 1000;
const fifo = (extra = {}) => ({ FifoQueue: "true", ...extra });

export const SCENARIOS = [
  {
    id: "visibility",
    title: "Visibility timeout: change it while the message is in flight",
    source: "SQS Developer Guide, “Amazon SQS visibility timeout”; ChangeMessageVisibility API reference",
    steps: [
      {
        caption: "A standard queue whose VisibilityTimeout is 60 s, holding one message.",
        actions: [["q", "orders", { VisibilityTimeout: "60" }], ["s", "orders", { body: "order #1001" }]],
      },
      {
        caption: "Consumer A receives the message. It is now in flight: hidden from other consumers for 60 s.",
        actions: [["r", 0, "orders", { max: 1 }]],
      },
      {
        caption: "15 seconds pass while A works on it.",
        actions: [["t", 15 * S]],
      },
      {
        caption: "A calls ChangeMessageVisibility with 10 s. The new deadline counts from now, not from the receive: the message becomes visible 25 s after it was received.",
        actions: [["v", 0, "m1", 10]],
      },
      {
        caption: "10 more seconds: at 25 s the visibility timeout ends and the message is back in the queue for anyone to receive.",
        actions: [["t", 10 * S]],
      },
      {
        caption: "Consumer B receives it; ApproximateReceiveCount is now 2.",
        actions: [["r", 1, "orders", { max: 1 }]],
      },
    ],
  },
  {
    id: "twelve-hours",
    title: "The 12-hour cap on visibility",
    source: "SQS Developer Guide, “Amazon SQS visibility timeout” (maximum 12 hours from the original receive)",
    steps: [
      {
        caption: "A standard queue with one message.",
        actions: [["q", "reports", {}], ["s", "reports", { body: "monthly report" }]],
      },
      {
        caption: "Consumer A receives it with the default VisibilityTimeout of 30 s.",
        actions: [["r", 0, "reports", { max: 1 }]],
      },
      {
        caption: "Without letting any time pass, A asks for 43,200 s (12 hours). SQS refuses: the total visibility would reach the 12-hour limit.",
        actions: [["v", 0, "m1", 43200]],
        expectError: "InvalidParameterValue",
      },
      {
        caption: "43,195 s stays just inside the limit and is accepted.",
        actions: [["v", 0, "m1", 43195]],
      },
    ],
  },
  {
    id: "fifo-one-group",
    title: "FIFO: one message group is processed in order",
    source: "SQS Developer Guide, “FIFO queue delivery logic”",
    steps: [
      {
        caption: "A FIFO queue with content-based deduplication and three messages in group “cart”. Each gets a sequence number.",
        actions: [
          ["q", "jobs.fifo", fifo({ ContentBasedDeduplication: "true" })],
          ["s", "jobs.fifo", { body: "add item", group: "cart" }],
          ["s", "jobs.fifo", { body: "apply coupon", group: "cart" }],
          ["s", "jobs.fifo", { body: "checkout", group: "cart" }],
        ],
      },
      {
        caption: "Consumer A receives one message: the first of the group. The group is now locked.",
        actions: [["r", 0, "jobs.fifo", { max: 1 }]],
      },
      {
        caption: "Consumer B asks too, but while a message of the group is in flight nothing later in that group is delivered.",
        actions: [["r", 1, "jobs.fifo", { max: 1 }]],
      },
      {
        caption: "A deletes its message; the lock lifts.",
        actions: [["d", 0, "m1"]],
      },
      {
        caption: "Now B receives the next message, in order.",
        actions: [["r", 1, "jobs.fifo", { max: 1 }]],
      },
    ],
  },
  {
    id: "fifo-two-groups",
    title: "FIFO: two groups, two consumers",
    source: "SQS Developer Guide, “FIFO queue delivery logic” and “Using the message group ID”",
    steps: [
      {
        caption: "Two groups, “alice” and “bob”, two messages each, sent interleaved.",
        actions: [
          ["q", "payments.fifo", fifo({ ContentBasedDeduplication: "true" })],
          ["s", "payments.fifo", { body: "alice: deposit", group: "alice" }],
          ["s", "payments.fifo", { body: "bob: deposit", group: "bob" }],
          ["s", "payments.fifo", { body: "alice: withdraw", group: "alice" }],
          ["s", "payments.fifo", { body: "bob: withdraw", group: "bob" }],
        ],
      },
      {
        caption: "Consumer A receives one message: alice's first. Group “alice” locks.",
        actions: [["r", 0, "payments.fifo", { max: 1 }]],
      },
      {
        caption: "Consumer B receives one message: alice is locked, so it gets bob's first. Both groups progress in parallel.",
        actions: [["r", 1, "payments.fifo", { max: 1 }]],
      },
      {
        caption: "Both delete what they processed.",
        actions: [["d", 0, "m1"], ["d", 1, "m2"]],
      },
      {
        caption: "A receives up to 10: SQS returns as many from one group as it can, in order, then fills from other groups.",
        actions: [["r", 0, "payments.fifo", { max: 10 }]],
      },
    ],
  },
  {
    id: "fifo-batch",
    title: "FIFO: a batch of 7 and a batch of 3",
    source: "SQS Developer Guide, “FIFO queue delivery logic” (SendMessageBatch, receiving from several groups)",
    steps: [
      {
        caption: "A FIFO queue. One SendMessageBatch of 7 messages to group “red”, then a batch of 3 to group “blue”.",
        actions: [
          ["q", "batches.fifo", fifo({ ContentBasedDeduplication: "true" })],
          ["b", "batches.fifo", [1, 2, 3, 4, 5, 6, 7].map((i) => ({ body: `red ${i}`, group: "red" }))],
          ["b", "batches.fifo", [1, 2, 3].map((i) => ({ body: `blue ${i}`, group: "blue" }))],
        ],
      },
      {
        caption: "Consumer A receives up to 5: the first five of “red”, in order. “red” is locked.",
        actions: [["r", 0, "batches.fifo", { max: 5 }]],
      },
      {
        caption: "Consumer B receives up to 10: “red” is locked, so B gets all three of “blue”.",
        actions: [["r", 1, "batches.fifo", { max: 10 }]],
      },
      {
        caption: "A deletes its five; “red” unlocks and A receives the last two.",
        actions: [["d", 0, "m1"], ["d", 0, "m2"], ["d", 0, "m3"], ["d", 0, "m4"], ["d", 0, "m5"], ["r", 0, "batches.fifo", { max: 10 }]],
      },
    ],
  },
  {
    id: "deduplication",
    title: "FIFO deduplication: within and after the 5-minute window",
    source: "SQS Developer Guide, “Exactly-once processing” and “Using the message deduplication ID”",
    steps: [
      {
        caption: "A FIFO queue with content-based deduplication: the deduplication id is the SHA-256 of the body. One message is sent.",
        actions: [["q", "invoices.fifo", fifo({ ContentBasedDeduplication: "true" })], ["s", "invoices.fifo", { body: "invoice 42", group: "billing" }]],
      },
      {
        caption: "A minute later the producer retries the same body. SQS accepts the call but enqueues nothing: the card it duplicates flashes.",
        actions: [["t", 60 * S], ["s", "invoices.fifo", { body: "invoice 42", group: "billing" }]],
      },
      {
        caption: "Consumer A receives and deletes the message.",
        actions: [["r", 0, "invoices.fifo", { max: 1 }], ["d", 0, "m1"]],
      },
      {
        caption: "Another retry 2 minutes after the first send: still a duplicate. SQS remembers the id even after the message was deleted.",
        actions: [["t", 60 * S], ["s", "invoices.fifo", { body: "invoice 42", group: "billing" }]],
      },
      {
        caption: "5 minutes after the first send the window has closed: the same body is now a new message.",
        actions: [["t", 3 * 60 * S + 1 * S], ["s", "invoices.fifo", { body: "invoice 42", group: "billing" }]],
      },
    ],
  },
  {
    id: "dead-letter",
    title: "A poison message walks to the dead-letter queue",
    source: "SQS Developer Guide, “Using dead-letter queues” (maxReceiveCount)",
    steps: [
      {
        caption: "A dead-letter queue, and a queue whose redrive policy sends a message there after 3 receives. VisibilityTimeout is 10 s.",
        actions: [
          ["q", "orders-dlq", {}],
          ["q", "orders", {
            VisibilityTimeout: "10",
            RedrivePolicy: { dlq: "orders-dlq", maxReceiveCount: 3 },
          }],
          ["s", "orders", { body: "{ malformed json" }],
        ],
      },
      {
        caption: "Receive 1: consumer A takes it, fails to parse it and never deletes it.",
        actions: [["r", 0, "orders", { max: 1 }]],
      },
      {
        caption: "The visibility timeout ends; consumer B tries (receive 2) and fails too.",
        actions: [["t", 10 * S], ["r", 1, "orders", { max: 1 }]],
      },
      {
        caption: "Timeout again; A tries a third time (receive 3 = maxReceiveCount).",
        actions: [["t", 10 * S], ["r", 0, "orders", { max: 1 }]],
      },
      {
        caption: "After the timeout the next receive would be the 4th: instead of delivering it, SQS moves the message to the dead-letter queue. B gets nothing.",
        actions: [["t", 10 * S], ["r", 1, "orders", { max: 1 }]],
      },
    ],
  },
];

export function scenarioById(id) {
  return SCENARIOS.find((s) => s.id === id) || null;
}

/** The actions of steps 0..step, flattened: what the log holds after that step. */
export function actionsThrough(scenario, step) {
  return scenario.steps.slice(0, step + 1).flatMap((s) => s.actions);
}

/** Thrown for a scenario that cannot run, naming the scenario, the step and the problem. */
export class ScenarioError extends Error {
  constructor(message) {
    super(message);
    this.name = "ScenarioError";
  }
}

const isText = (v) => typeof v === "string" && v.length > 0;
const isIndex = (v) => Number.isInteger(v) && v >= 0;
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const isMessage = (v) => isObject(v) && typeof v.body === "string";

/**
 * Each action kind and what its arguments must be (the log format in playground.js): a problem
 * in words, or null when the action is well formed. The engine still answers for what it alone
 * can judge (a queue name SQS refuses, a visibility over the cap): that is a step's SQS error.
 */
const ACTION_RULES = {
  q: ([, name, attrs]) => !isText(name) ? "a queue name (text)" : attrs !== undefined && !isObject(attrs) ? "attributes as an object" : null,
  sel: ([, name]) => (isText(name) ? null : "a queue name (text)"),
  s: ([, queue, m]) => !isText(queue) ? "a queue name (text)" : !isMessage(m) ? "a message object with a text `body`" : null,
  b: ([, queue, ms]) => !isText(queue) ? "a queue name (text)" : !Array.isArray(ms) || !ms.every(isMessage) ? "a list of message objects, each with a text `body`" : null,
  c: () => null,
  r: ([, c, queue, opts]) => !isIndex(c) ? "a consumer number (0 is A)" : !isText(queue) ? "a queue name (text)" : opts !== undefined && !isObject(opts) ? "options as an object ({max, vt, wait})" : null,
  d: ([, c, label]) => !isIndex(c) ? "a consumer number (0 is A)" : !isText(label) ? "a message label such as \"m1\"" : null,
  v: ([, c, label, s]) => !isIndex(c) ? "a consumer number (0 is A)" : !isText(label) ? "a message label such as \"m1\"" : typeof s !== "number" ? "a visibility timeout in seconds (a number)" : null,
  h: ([, c, label, on]) => !isIndex(c) ? "a consumer number (0 is A)" : !isText(label) ? "a message label such as \"m1\"" : typeof on !== "boolean" ? "true or false (heartbeat on or off)" : null,
  t: ([, ms]) => (Number.isFinite(ms) && ms >= 0 ? null : "a time to pass in milliseconds (a number ≥ 0)"),
  R: ([, mode, knobs]) => !["off", "aws", "custom"].includes(mode)
    ? "a realism mode: \"off\", \"aws\" or \"custom\""
    : knobs !== undefined && (!Array.isArray(knobs) || !knobs.every((k) => k in REALISM_KNOBS))
      ? `a list of realism knobs (${Object.keys(REALISM_KNOBS).join(", ")})`
      : null,
};

/** The action kinds a scenario may use (www/README.md's table lists each). */
export const ACTION_KINDS = Object.keys(ACTION_RULES);

/** Check a scenario's shape; returns it, or throws a ScenarioError naming the step and the problem. */
export function validateScenario(def) {
  if (!isObject(def)) throw new ScenarioError("A scenario must be a JSON object with a title and steps.");
  const name = isText(def.title) ? `Scenario “${def.title}”` : "The scenario";
  const fail = (where, problem) => { throw new ScenarioError(`${name}: ${where}${problem}`); };
  if (!isText(def.id) || !/^[\w.-]+$/.test(def.id)) fail("", "needs an `id` of letters, digits, -, _ or . (it names the scenario in links).");
  if (!isText(def.title)) fail("", "needs a `title` (text).");
  if (def.source !== undefined && typeof def.source !== "string") fail("", "`source` must be text.");
  if (!Array.isArray(def.steps) || def.steps.length === 0) fail("", "needs `steps`: a non-empty list.");
  def.steps.forEach((step, i) => {
    const at = `step ${i} (${i === 0 ? "the setup" : `step ${i + 1} of ${def.steps.length}`}): `;
    if (!isObject(step)) fail(at, "must be an object with a caption and actions.");
    if (!isText(step.caption)) fail(at, "needs a `caption` (text).");
    if (!Array.isArray(step.actions)) fail(at, "needs `actions`: a list (it may be empty).");
    if (step.expectError !== undefined && !isText(step.expectError)) fail(at, "`expectError` must be an SQS error name, such as \"InvalidParameterValue\".");
    step.actions.forEach((action, j) => {
      const which = `${at}action ${j + 1} ${JSON.stringify(action)?.slice(0, 60)} `;
      if (!Array.isArray(action) || !(action[0] in ACTION_RULES)) {
        fail(which, `is not an action: each is a list whose first item is one of ${Object.keys(ACTION_RULES).map((k) => `"${k}"`).join(", ")}.`);
      }
      const problem = ACTION_RULES[action[0]](action);
      if (problem) fail(which, `needs ${problem}.`);
    });
  });
  return def;
}

/** Fetch an author's scenario (JSON) and validate it; errors say what went wrong and where. */
export async function loadScenarioSource(url) {
  let res;
  try {
    res = await fetch(url);
  } catch (e) {
    throw new ScenarioError(`The scenario at ${url} could not be fetched: ${e.message}`);
  }
  if (!res.ok) throw new ScenarioError(`The scenario at ${url} could not be fetched: HTTP ${res.status}.`);
  let def;
  try {
    def = JSON.parse(await res.text());
  } catch (e) {
    throw new ScenarioError(`The scenario at ${url} is not valid JSON: ${e.message}`);
  }
  return validateScenario(def);
}
