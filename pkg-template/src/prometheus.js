// The Prometheus text exposition format (version 0.0.4), for `wasq serve`'s and the edge
// Worker's `GET /metrics`: every family once, with its HELP and TYPE lines, then all of its
// samples together (the format requires a family's samples to be contiguous, which matters when
// several partitions contribute to one family). Names follow Prometheus's conventions: a `wasq_`
// prefix, base units (seconds), `_total` on counters.

const decoder = new TextDecoder();

/**
 * The answer to a scrape that is not signed as SQS requests must be, from `admitHttp`'s verdict
 * on it, or undefined when it is signed. The protocol layer checks the signature first and then
 * looks for the action; a scrape names none, so once its signature passed it is refused for that
 * alone (MissingParameter) and for nothing else. Any other refusal (a missing, malformed or
 * wrong signature) is the answer, as it would be to an SQS request.
 */
export function scrapeRefusal(admitted) {
  const res = admitted.response;
  if (res === undefined) return undefined;
  const code = /<Code>([^<]*)<\/Code>/.exec(decoder.decode(res.body))?.[1];
  return code === "MissingParameter" ? undefined : res;
}

/** The content type a scraper negotiates for this format. */
export const CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** A label value as the format quotes it: backslash, double quote and line feed escaped. */
export function escapeLabelValue(value) {
  return String(value).replace(/[\\"\n]/g, (c) => (c === "\n" ? "\\n" : "\\" + c));
}

/** HELP text escapes only backslash and line feed. */
function escapeHelp(text) {
  return text.replace(/[\\\n]/g, (c) => (c === "\n" ? "\\n" : "\\\\"));
}

function formatValue(v) {
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  if (Number.isNaN(v)) return "NaN";
  return String(v);
}

function labelText(labels) {
  const parts = [];
  for (const [name, value] of Object.entries(labels)) {
    if (value === undefined) continue;
    parts.push(`${name}="${escapeLabelValue(value)}"`);
  }
  return parts.length === 0 ? "" : `{${parts.join(",")}}`;
}

/**
 * Families as text. Each family: `{ name, help, type, samples: [{ labels, value, suffix? }] }`;
 * a sample's `suffix` (`_bucket`, `_sum`, `_count`) is appended to the family's name, as
 * histograms need. A family without samples is left out.
 */
export function familiesText(families) {
  let out = "";
  for (const f of families) {
    if (f.samples.length === 0) continue;
    out += `# HELP ${f.name} ${escapeHelp(f.help)}\n# TYPE ${f.name} ${f.type}\n`;
    for (const s of f.samples) out += `${f.name}${s.suffix ?? ""}${labelText(s.labels)} ${formatValue(s.value)}\n`;
  }
  return out;
}

/**
 * The per-queue families from `engine.metrics().queues` rows. `extra(row)` gives labels to add
 * to every sample of a row (the edge Worker's `partition`). The `region` label is given only
 * when the rows hold more than one region, so that the common single-region server has one
 * label less on every series.
 */
export function queueFamilies(rows, extra = () => ({})) {
  const regions = new Set(rows.map((r) => r.region));
  const labelsOf = (r) => ({ queue: r.queue, region: regions.size > 1 ? r.region : undefined, ...extra(r) });
  const family = (name, help, type, value) => ({
    name,
    help,
    type,
    samples: rows.map((r) => ({ labels: labelsOf(r), value: value(r) })),
  });
  const messages = {
    name: "wasq_queue_messages",
    help: "Messages in the queue by state: visible (receivable), inflight (received, not yet deleted or visible again), delayed.",
    type: "gauge",
    samples: rows.flatMap((r) =>
      ["visible", "inflight", "delayed"].map((state) => ({ labels: { ...labelsOf(r), state }, value: r[state] })),
    ),
  };
  return [
    messages,
    family(
      "wasq_queue_oldest_message_age_seconds",
      "Age of the oldest message in the queue in any state (0 when it is empty).",
      "gauge",
      (r) => r.oldestMessageAgeSeconds,
    ),
    family("wasq_queue_messages_sent_total", "Messages added to the queue by SendMessage and SendMessageBatch.", "counter", (r) => r.sent),
    family("wasq_queue_messages_received_total", "Messages returned by ReceiveMessage.", "counter", (r) => r.received),
    family("wasq_queue_messages_deleted_total", "Successful DeleteMessage calls and DeleteMessageBatch entries.", "counter", (r) => r.deleted),
    family(
      "wasq_queue_messages_moved_to_dead_letter_queue_total",
      "Messages moved from this queue to its dead-letter queue after maxReceiveCount receives.",
      "counter",
      (r) => r.movedToDeadLetterQueue,
    ),
    family(
      "wasq_queue_throttled_requests_total",
      "Calls on this queue refused with RequestThrottled by realism throttling.",
      "counter",
      (r) => r.throttled,
    ),
  ];
}
