// Time to first message for a test-runner user (Vitest, Jest, node:test), four figures:
//
// 1. start-up, in fresh processes: `import "wasq"`, then the first engine + CreateQueue of the
//    process (its first calls compile the wasm's paths), each the median over PROCESSES runs;
// 2. a warm test in-process: new Engine + createQueue + an SDK client with createRequestHandler
//    + send + receive + delete + close();
// 3. the SDK's own floor: the same client calls (send + receive + delete, each test with a new
//    client) against a requestHandler that answers at once with canned bytes (the engine's own
//    answers, recorded once), so nothing of wasq runs. It does what any requestHandler must: a
//    handler object per client, as createRequestHandler(engine) is per engine, and a body of
//    fresh bytes per answer, which the SDK takes over (it re-types it in place) as it takes ours;
// 4. wasq's own work in that test: the requests the SDK made, recorded once, replayed into
//    createRequestHandler with the same engine calls around them, and no SDK.
// 2, 3 and 4 run in rounds on one process, alternating their order; a round's ratio compares
// rounds taken side by side, so load that comes and goes moves both. Reported: medians, and the
// spread of the per-round ratios (quartiles, then extremes). Start-up is wall-clock time (what a
// test runner waits for), so it moves with load.
//
//   node bench/first-message.mjs [PKG_DIR=pkg] [ROUNDS=60] [TESTS_PER_ROUND=25] [PROCESSES=15]
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [pkgArg = "pkg", roundsArg = "60", perRoundArg = "25", processesArg = "15"] = process.argv.slice(2);
const pkg = resolve(pkgArg);
const entry = pathToFileURL(pkg + "/entry/node.js").href;
const [ROUNDS, PER_ROUND, PROCESSES] = [roundsArg, perRoundArg, processesArg].map(Number);
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (s.length - 1) * q;
  const lo = Math.floor(at);
  return s[lo] + (s[Math.ceil(at)] - s[lo]) * (at - lo);
};
const median = (xs) => quantile(xs, 0.5);
const ms = (x) => x.toFixed(2) + " ms";
const spread = (xs) =>
  `quartiles ${quantile(xs, 0.25).toFixed(2)}-${quantile(xs, 0.75).toFixed(2)}, extremes ${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)}`;

// 1. Start-up, each sample a fresh process (what every test file of a runner that isolates files pays).
const startup = `
  const t0 = performance.now();
  const { Engine, ManualClock } = await import(${JSON.stringify(entry)});
  const t1 = performance.now();
  const engine = new Engine({ clock: new ManualClock(0) });
  engine.createQueue({ QueueName: "jobs" });
  const t2 = performance.now();
  engine.close();
  process.stdout.write(JSON.stringify([t1 - t0, t2 - t1]));
`;
const imports = [];
const firsts = [];
for (let i = 0; i < PROCESSES; i++) {
  const [imp, first] = JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", startup], { encoding: "utf8" }));
  imports.push(imp);
  firsts.push(first);
}

// 2, 3 and 4, warm.
const { Engine, ManualClock, createRequestHandler } = await import(entry);
const { SQSClient, SendMessageCommand, ReceiveMessageCommand, DeleteMessageCommand } = await import("@aws-sdk/client-sqs");
const START = Date.parse("2026-01-01T00:00:00Z");
const client = (requestHandler) =>
  new SQSClient({
    region: "us-east-1",
    endpoint: "http://sqs.local",
    credentials: { accessKeyId: "x", secretAccessKey: "y" },
    requestHandler,
  });
async function sendReceiveDelete(sqs, QueueUrl) {
  await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: "hello" }));
  const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl }));
  await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: Messages[0].ReceiptHandle }));
}

async function inProcessTest() {
  const engine = new Engine({ clock: new ManualClock(START), defaultHost: "sqs.local" });
  const { QueueUrl } = engine.createQueue({ QueueName: "jobs" });
  await sendReceiveDelete(client(createRequestHandler(engine)), QueueUrl);
  engine.close();
}

// The canned answers: the engine's own, recorded once, replayed by target; and the requests, for
// 4. The SDK checks the MD5s in the answers against what it sent, so the test sends the same body.
// The seed is fixed so the replayed delete names the handle the replayed receive gets.
const canned = new Map();
const requests = [];
const SEED = 7;
let cannedQueueUrl;
{
  const engine = new Engine({ clock: new ManualClock(START), defaultHost: "sqs.local", seed: SEED });
  const real = createRequestHandler(engine);
  const recorder = {
    ...real,
    metadata: real.metadata,
    async handle(request, options) {
      requests.push({ ...request, headers: { ...request.headers }, body: new Uint8Array(request.body) });
      const out = await real.handle(request, options);
      canned.set(request.headers["x-amz-target"], { ...out.response, body: new Uint8Array(out.response.body) });
      return out;
    },
  };
  const { QueueUrl } = engine.createQueue({ QueueName: "jobs" });
  cannedQueueUrl = QueueUrl;
  await sendReceiveDelete(client(recorder), QueueUrl);
  engine.close();
}
const cannedHandler = () => ({
  metadata: { handlerProtocol: "http/1.1" },
  async handle(request) {
    const r = canned.get(request.headers["x-amz-target"]);
    return { response: { statusCode: r.statusCode, headers: { ...r.headers }, body: new Uint8Array(r.body) } };
  },
  updateHttpClientConfig() {},
  httpHandlerConfigs: () => ({}),
  destroy() {},
});
// The URL the engine answers, as the in-process test uses: the SDK's SQS middleware reads it.
const floorTest = () => sendReceiveDelete(client(cannedHandler()), cannedQueueUrl);

async function wasqAloneTest() {
  const engine = new Engine({ clock: new ManualClock(START), defaultHost: "sqs.local", seed: SEED });
  engine.createQueue({ QueueName: "jobs" });
  const handler = createRequestHandler(engine);
  for (const request of requests) {
    const { response } = await handler.handle({ ...request, headers: { ...request.headers } });
    if (response.statusCode !== 200) throw new Error(`replayed ${request.headers["x-amz-target"]}: ${response.statusCode}`);
  }
  engine.close();
}

// CPU time, not wall-clock: on a loaded machine the waits for a core inflate wall-clock time by
// several times, and unevenly. The main thread's (what a test waits on; Node >= 22.19) leaves out
// the garbage collector's and compilers' helper threads, which a machine with cores to spare runs
// alongside; the process's (every thread) is reported too. The main thread's clock advances by
// the scheduler's tick (up to 4 ms), so a round lasts tens of ms.
const processCpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const mainCpu = typeof process.threadCpuUsage === "function" ? () => {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
} : null;
async function round(test, count) {
  const [m0, p0] = [mainCpu?.(), processCpu()];
  for (let i = 0; i < count; i++) await test();
  return { main: mainCpu ? (mainCpu() - m0) / count : NaN, process: (processCpu() - p0) / count };
}
// wasq alone is a few percent of a test: its rounds run more of them, to last as long.
const tests = { inProcess: [inProcessTest, PER_ROUND], floor: [floorTest, PER_ROUND], alone: [wasqAloneTest, PER_ROUND * 20] };
const names = Object.keys(tests);
for (const name of names) await round(...tests[name]); // warm every path before measuring
const rounds = Object.fromEntries(names.map((name) => [name, []]));
for (let r = 0; r < ROUNDS; r++) {
  // Each takes every place in turn, so none always runs right after another's garbage.
  const order = names.map((_, i) => names[(i + r) % names.length]);
  for (const name of order) rounds[name].push(await round(...tests[name]));
}

console.log(`node ${process.version}, ${pkg}, ${ROUNDS} rounds x ${PER_ROUND} tests`);
console.log(`start-up (median of ${PROCESSES} fresh processes): import ${ms(median(imports))}, first engine + CreateQueue ${ms(median(firsts))}`);
for (const clock of mainCpu ? ["main", "process"] : ["process"]) {
  const of = (name) => rounds[name].map((x) => x[clock]);
  const ratios = of("inProcess").map((x, i) => x / of("floor")[i]);
  const gap = of("inProcess").map((x, i) => x - of("floor")[i]);
  console.log(`warm test, ${clock === "main" ? "main-thread" : "whole-process"} CPU per test (medians):`);
  console.log(`  in-process ${ms(median(of("inProcess")))}, SDK floor (canned answers) ${ms(median(of("floor")))}, wasq alone (no SDK) ${ms(median(of("alone")))}`);
  console.log(`  in-process / floor: ${median(ratios).toFixed(2)}x (per-round ${spread(ratios)}); in-process - floor ${ms(median(gap))}`);
}
