// `GET /metrics` of `wasq serve`: the engine's per-queue numbers and the server's own request
// counts and latencies, in the Prometheus text format.
//
// What is counted per request is two map updates (a counter and a histogram bucket), keyed by
// labels drawn from fixed sets (the SQS actions, the error codes the server answers), so a client
// cannot grow them; the queues' gauges are read from the engine only when somebody scrapes.

import { flatLookup, protocolOptions } from "../src/http.js";
import { requestHead } from "../src/http-head.js";
import { ADMIT } from "../src/engine.js";
import { engineFacts } from "../src/facts.js";
import { CONTENT_TYPE, familiesText, queueFamilies, scrapeRefusal } from "../src/prometheus.js";

/**
 * Upper bounds of the latency histogram's buckets, in seconds: from a millisecond (an answer
 * from memory) to 30 s, past the longest long poll (20 s).
 */
export const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30];

/** An error code as the answer gives it, if it looks like one (letters, digits, dots). */
const CODE = /^[A-Za-z][A-Za-z0-9.]{0,99}$/;

/**
 * The action a request names, without parsing more than needed: the JSON protocol's target
 * header, else `Action=` in the query string or the start of a form body. Anything not an SQS
 * action (the core's list, src/facts.js) is "unknown", so the label's values stay the SQS actions
 * whatever clients send.
 */
export function actionOf(header, query, body) {
  const target = header("x-amz-target");
  let action;
  if (target !== undefined) action = target.startsWith("AmazonSQS.") ? target.slice(10) : target;
  else {
    const inQuery = /(?:^|&)Action=([A-Za-z]+)/.exec(query);
    const inBody = inQuery ?? (body.length > 0 ? /(?:^|&)Action=([A-Za-z]+)/.exec(body.toString("latin1", 0, Math.min(body.length, 4096))) : null);
    action = inBody?.[1];
  }
  return engineFacts().actions.has(action) ? action : "unknown";
}

/**
 * `success`, or the error code of the answer (the Query protocol's code, which both protocols
 * carry: JSON in `x-amzn-query-error`, XML in `<Code>`), so one error has one label value.
 * @param {number} status
 * @param {string[]} flat header names and values, alternating
 * @param {Uint8Array} body
 */
export function outcomeOf(status, flat, body) {
  if (status < 400) return "success";
  for (let i = 0; i + 1 < flat.length; i += 2) {
    if (flat[i].toLowerCase() === "x-amzn-query-error") {
      const code = flat[i + 1].split(";")[0];
      if (CODE.test(code)) return code;
    }
  }
  const xml = Buffer.from(body.buffer, body.byteOffset, Math.min(body.byteLength, 2048)).toString("latin1");
  const code = /<Code>([^<]*)<\/Code>/.exec(xml)?.[1];
  return code !== undefined && CODE.test(code) ? code : `HTTP${status}`;
}

/** The outcome of a request that ended without a protocol answer (see server.mjs's catch). */
function endedOutcome(res) {
  if (!res.headersSent) return "ClientClosed";
  if (res.statusCode === 503) return "ServiceUnavailable";
  if (res.statusCode === 500) return "InternalFailure";
  return `HTTP${res.statusCode}`;
}

/** The server's request counters and latency histogram, and the `/metrics` route. */
export class ServerMetrics {
  /**
   * action → { success, errors: Map(outcome → count), buckets: count per bucket (not
   * cumulative; +Inf last), sum, count }: one map lookup per request, the success count a field.
   */
  #actions = new Map();
  #public;

  /**
   * @param {object} [options]
   * @param {boolean} [options.public] serve `/metrics` without a signature even when the server
   *   requires credentials (`--metrics-public`)
   */
  constructor({ public: isPublic = false } = {}) {
    this.#public = isPublic;
  }

  /** A request's arrival (ms, `performance.now()`: a number, where hrtime makes a BigInt). */
  start() {
    return performance.now();
  }

  /**
   * Count a request as its answer is written: before the client has it, so a scrape that follows
   * sees it counted. Its duration runs to that moment (a long poll's includes its wait).
   */
  answered(started, header, query, body, status, flat, responseBody) {
    this.record(actionOf(header, query, body), status < 400 ? "success" : outcomeOf(status, flat, responseBody), (performance.now() - started) / 1000);
  }

  /** Count a request that ended without a protocol answer: its client left, or the server is stopping or failed. */
  ended(started, req, query, body, res) {
    this.record(actionOf(flatLookup(req.rawHeaders), query, body), endedOutcome(res), (performance.now() - started) / 1000);
  }

  record(action, outcome, seconds) {
    let a = this.#actions.get(action);
    if (a === undefined) {
      a = { success: 0, errors: new Map(), buckets: new Array(BUCKETS.length + 1).fill(0), sum: 0, count: 0 };
      this.#actions.set(action, a);
    }
    if (outcome === "success") a.success++;
    else a.errors.set(outcome, (a.errors.get(outcome) ?? 0) + 1);
    let i = 0;
    while (i < BUCKETS.length && seconds > BUCKETS[i]) i++;
    a.buckets[i]++;
    a.sum += seconds;
    a.count++;
  }

  /** The request families: `wasq_requests_total` and `wasq_request_duration_seconds`. */
  families() {
    const actions = [...this.#actions].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
    const requests = [];
    const histogram = [];
    for (const [action, a] of actions) {
      const outcomes = [...a.errors];
      if (a.success > 0) outcomes.push(["success", a.success]);
      outcomes.sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
      for (const [outcome, value] of outcomes) requests.push({ labels: { action, outcome }, value });
      let cumulative = 0;
      BUCKETS.forEach((le, i) => {
        cumulative += a.buckets[i];
        histogram.push({ suffix: "_bucket", labels: { action, le: String(le) }, value: cumulative });
      });
      histogram.push({ suffix: "_bucket", labels: { action, le: "+Inf" }, value: a.count });
      histogram.push({ suffix: "_sum", labels: { action }, value: a.sum });
      histogram.push({ suffix: "_count", labels: { action }, value: a.count });
    }
    return [
      {
        name: "wasq_requests_total",
        help: "SQS requests answered, by action and outcome (success, or the error code answered).",
        type: "counter",
        samples: requests,
      },
      {
        name: "wasq_request_duration_seconds",
        help: "Time from a request's arrival until its answer is written (long polls included), by action.",
        type: "histogram",
        samples: histogram,
      },
    ];
  }

  /** The whole exposition: the engine's queues, then the requests. */
  text(engine) {
    return familiesText([...queueFamilies(engine.metrics().queues), ...this.families()]);
  }

  /**
   * Answer `GET /metrics`. With credentials and not public, the scrape must be SigV4-signed by
   * them like any other request (its body is not read: a signed GET has none, and a signature
   * over a body fails against the empty one, which refuses it).
   */
  serve(req, res, { engine, credentials, path, query }) {
    req.resume();
    if (credentials && !this.#public) {
      const head = requestHead(req.method, path, query, req.rawHeaders);
      const refusal = scrapeRefusal(engine[ADMIT](head, new Uint8Array(0), protocolOptions({ credentials })));
      if (refusal !== undefined) {
        res.writeHead(refusal.status, [...refusal.head.split("\0"), "content-length", String(refusal.body.byteLength)]);
        return res.end(refusal.body);
      }
    }
    const text = this.text(engine);
    res.writeHead(200, { "content-type": CONTENT_TYPE, "content-length": Buffer.byteLength(text) });
    res.end(req.method === "HEAD" ? undefined : text);
  }
}
