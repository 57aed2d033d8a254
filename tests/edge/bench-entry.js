// The benchmark's Worker entry (copied next to a copy of the package by bench.mjs; not shipped):
// the real Worker plus POST /__bench, which replays pre-signed SQS requests from inside workerd
// with a fixed concurrency, either through the Worker's own handler or straight to one queue
// object, so that Node and miniflare's HTTP bridge are not part of what is measured.
import worker, { WasqQueue, WasqDirectory } from "./worker/index.js";

export { WasqQueue, WasqDirectory };

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname !== "/__bench") return worker.fetch(request, env);
    const { requests, concurrency, seconds, object } = await request.json();
    const stub = object ? env.WASQ_QUEUE.get(env.WASQ_QUEUE.idFromName(object)) : null;
    let next = 0;
    let done = 0;
    let failed = 0;
    const started = Date.now();
    const end = started + seconds * 1000;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        // Date.now() only advances across I/O in workerd; every iteration awaits an object call.
        while (Date.now() < end && next < requests.length) {
          const r = requests[next++];
          // `parsed`: the Worker's admitted form (objects since /parsed); else the HTTP request (older builds).
          const res = !stub
            ? await worker.fetch(new Request(`http://${r.host}${r.path}`, { method: "POST", headers: r.headers, body: r.body }), env)
            : r.parsed
              ? await stub.fetch("http://wasq/parsed", { method: "POST", body: JSON.stringify(r.parsed) })
              : await stub.fetch("http://wasq/http", {
                  method: "POST",
                  headers: { "x-wasq-request": JSON.stringify({ method: "POST", path: r.path, query: "", headers: r.headers }) },
                  body: r.body,
                });
          await res.arrayBuffer();
          const status = stub ? Number(res.headers.get("x-wasq-status")) : res.status;
          if (status === 200) done++;
          else failed++;
        }
      }),
    );
    return Response.json({ done, failed, ms: Date.now() - started, exhausted: next >= requests.length });
  },
};
