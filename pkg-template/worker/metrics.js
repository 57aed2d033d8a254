// `GET /metrics` of the edge Worker: every queue's numbers, one series per partition (label
// `partition="n"`), in the Prometheus text format.
//
// The directory's engine holds every queue (no messages), so it names them; each partition's
// Durable Object holds that partition's messages and counters, and is asked for its own
// numbers. Shadows (a dead-letter queue's outboxes in its sources' partitions, see objects.js)
// are left out: they hold a message only between a receive that dead-letters it and its
// transfer to the queue's own partition, moments later.

import { CONTENT_TYPE, familiesText, queueFamilies } from "../src/prometheus.js";

async function post(target, path, input) {
  const res = await target.fetch(`http://wasq${path}`, { method: "POST", body: JSON.stringify(input) });
  if (!res.ok) throw new Error(`wasq edge: ${path} failed: ${res.status} ${await res.text()}`);
  return res.json();
}

/** Is this request a scrape (`GET /metrics`, not a Query-protocol `?Action=`)? */
export function isScrape(req) {
  return (req.method === "GET" || req.method === "HEAD") && req.path === "/metrics" && !/(?:^|&)Action=/.test(req.query);
}

/**
 * The exposition. `meta(region, name)` is the router's cached directory record lookup
 * (`{ partitions, locations }`).
 */
export async function metricsResponse(env, req, meta) {
  const directory = env.WASQ_DIRECTORY.get(env.WASQ_DIRECTORY.idFromName("directory"));
  const { queues } = await post(directory, "/metrics", {});
  const rows = [];
  await Promise.all(
    queues.map(async ({ queue, region }) => {
      const record = await meta(env, region, queue);
      if (!record) return; // deleted since the directory answered
      const own = record.locations.slice(0, record.partitions);
      const parts = await Promise.all(
        own.map((name) => post(env.WASQ_QUEUE.get(env.WASQ_QUEUE.idFromName(name)), "/metrics", {})),
      );
      parts.forEach((part, partition) => {
        const row = part.queues.find((r) => r.queue === queue && r.region === region);
        if (row) rows.push({ ...row, partition });
      });
    }),
  );
  rows.sort((a, b) => (a.region + "/" + a.queue).localeCompare(b.region + "/" + b.queue) || a.partition - b.partition);
  const text = familiesText(queueFamilies(rows, (r) => ({ partition: String(r.partition) })));
  const body = new TextEncoder().encode(req.method === "HEAD" ? "" : text);
  return { status: 200, headers: [["content-type", CONTENT_TYPE]], body };
}
