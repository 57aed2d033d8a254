// The answers `wasq serve` gives when it, not the request, failed: storage that cannot write
// (a full disk, an I/O error), an unexpected error, a server shutting down. They are SQS-shaped
// server faults in the request's protocol (AWS JSON or Query XML) so that clients treat them as
// SQS's own: the AWS SDKs and botocore retry a 500 or 503 with backoff, where a text/plain 500
// surfaced as an unparseable answer.

import { errorResponse } from "../worker/wire.js";

/** The protocol the protocol layer answers a request in (protocol_of in src/protocol/mod.rs). */
export function isJson(header) {
  return header("x-amz-target") !== undefined || /^application\/x-amz-json/i.test(header("content-type") ?? "");
}

/**
 * An operating-system error (Node's system errors carry `code` and `syscall`): ENOSPC, EDQUOT,
 * EIO, EROFS… from the storage's writes or syncs.
 */
function isSystemError(err) {
  return typeof err?.code === "string" && /^E[A-Z0-9]+$/.test(err.code) && typeof err.syscall === "string";
}

/**
 * The answer to a request that failed with `err` inside the server.
 *
 * A storage error is `ServiceUnavailable` (503, AWS's common error for "a temporary failure of
 * the server"): the engine refused the change it could not store (it rebuilds itself from what
 * storage holds) and the same request may well succeed once space is freed. Anything else is
 * `InternalFailure` (500), AWS's common error for an unknown failure. Both are faults of the
 * receiver, which is what makes the SDKs retry them.
 */
export function serverFault(header, err) {
  if (isSystemError(err)) {
    return errorResponse(isJson(header), {
      type: "com.amazon.coral.service#ServiceUnavailableException",
      code: "ServiceUnavailable",
      status: 503,
      fault: "Receiver",
      message: `The request has failed due to a temporary failure of the server: its storage could not write (${err.code}).`,
    });
  }
  return errorResponse(isJson(header), {
    type: "com.amazon.coral.service#InternalFailure",
    code: "InternalFailure",
    status: 500,
    fault: "Receiver",
    message: "The request processing has failed because of an unknown error, exception or failure.",
  });
}

/** The answer to a request the server is too close to exiting to serve. */
export function shuttingDown(header) {
  return errorResponse(isJson(header), {
    type: "com.amazon.coral.service#ServiceUnavailableException",
    code: "ServiceUnavailable",
    status: 503,
    fault: "Receiver",
    message: "The request has failed due to a temporary failure of the server: wasq serve is shutting down.",
  });
}

/** The one-line log of a storage error (its stack says nothing the code does not). */
export function describeFailure(err) {
  return isSystemError(err) ? `storage failed: ${err.message}` : (err?.stack ?? String(err));
}
