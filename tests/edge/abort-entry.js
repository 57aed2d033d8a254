// Test entry for the abort test (copied next to a copy of the package; not shipped): the real
// Worker, except that a request carrying `x-test-abort-after-ms` gets a request.signal that
// aborts after that long — what the runtime does when a client goes away (local workerd does not
// notice a client's disconnect while the handler waits, so the test makes the abort here).
import worker, { WasqQueue, WasqDirectory } from "./worker/index.js";

export { WasqQueue, WasqDirectory };

export default {
  async fetch(request, env) {
    const after = Number(request.headers.get("x-test-abort-after-ms"));
    if (!after) return worker.fetch(request, env);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), after);
    try {
      return await worker.fetch(new Request(request, { signal: controller.signal }), env);
    } catch (err) {
      return new Response(`aborted: ${err?.name}`, { status: 499 });
    } finally {
      clearTimeout(timer);
    }
  },
};
