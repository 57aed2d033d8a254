// `wasq/worker`: a Cloudflare Worker that speaks SQS (AWS JSON 1.0 and Query) and keeps every
// queue in Durable Objects. Re-export it from your own worker module:
//
//   export { default, WasqQueue, WasqDirectory } from "wasq/worker";
//
// Bindings: WASQ_QUEUE (class WasqQueue) and WASQ_DIRECTORY (class WasqDirectory), both
// SQLite-backed. Settings (vars / secrets): WASQ_ACCESS_KEY_ID + WASQ_SECRET_ACCESS_KEY (SigV4,
// required unless WASQ_AUTH = "off"), WASQ_PARTITIONS (default partition count of splittable
// queues, 1), WASQ_ACCOUNT_ID, WASQ_REGION. See docs/edge.md for the design.

import { handleRequest } from "./router.js";
import { WasqQueue, WasqDirectory } from "./objects.js";
import { keepNames } from "../src/names.js";

keepNames({ WasqQueue, WasqDirectory, handleRequest });

export { WasqQueue, WasqDirectory, handleRequest };

export default {
  fetch(request, env) {
    return handleRequest(request, env);
  },
};
