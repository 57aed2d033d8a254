// Type declarations for `wasq/worker`: the Cloudflare Worker and the two Durable Object classes
// that serve SQS from Durable Objects (docs/edge.md). Re-export them from your worker module:
//
//   export { default, WasqQueue, WasqDirectory } from "wasq/worker";
//
// Cloudflare's own types (DurableObjectState, DurableObjectNamespace) are not named, so that
// these declarations type-check with or without @cloudflare/workers-types.

/** The bindings and settings the worker reads (wrangler `durable_objects` and `vars`/secrets). */
export interface WasqEnv {
  /** Durable Object namespace of class WasqQueue (SQLite-backed). */
  WASQ_QUEUE: unknown;
  /** Durable Object namespace of class WasqDirectory (SQLite-backed). */
  WASQ_DIRECTORY: unknown;
  /** SigV4 credentials clients must sign with; required unless WASQ_AUTH is "off". */
  WASQ_ACCESS_KEY_ID?: string;
  WASQ_SECRET_ACCESS_KEY?: string;
  WASQ_AUTH?: string;
  /** Default partition count of queues that can be split by message group (1). */
  WASQ_PARTITIONS?: string;
  WASQ_ACCOUNT_ID?: string;
  WASQ_REGION?: string;
  /** "on": serve GET /metrics without a SigV4 signature even when auth is on. */
  WASQ_METRICS_PUBLIC?: string;
}

/** One SQS request (AWS JSON 1.0 or Query) against the deployment's queues. */
export function handleRequest(request: Request, env: WasqEnv): Promise<Response>;

/** A queue (or one partition of one): its messages and their engine. */
export class WasqQueue {
  constructor(ctx: unknown, env: WasqEnv);
  fetch(request: Request): Promise<Response>;
  alarm(): Promise<void>;
}

/** The account's queue names, attributes, tags and move tasks. */
export class WasqDirectory {
  constructor(ctx: unknown, env: WasqEnv);
  fetch(request: Request): Promise<Response>;
  alarm(): Promise<void>;
}

declare const worker: { fetch(request: Request, env: WasqEnv): Promise<Response> };
export default worker;
