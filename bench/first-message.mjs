// Time to first message for a test-runner user (Vitest, Jest, node:test), three figures:
//
// 1. start-up, in fresh processes: `import "wasq"`, then the first engine + CreateQueue of the
//    process (its first calls compile the wasm's paths), each the median over PROCESSES runs;
// 2. a warm test in-process: new Engine + createQueue + an SDK client with createRequestHandler
//    + send + receive + delete + close();
// 3. the SDK's own floor: the same client calls (send + receive + delete, each with a new client)
//    against a requestHandler that answers at once with canned bytes (the engine's own answers,
//    recorded once), so nothing of wasq runs.
// 2 and 3 alternate in rounds on one process and the medians of per-test CPU times are compared,
// as a ratio. Start-up is wall-clock time (what a test runner waits for), so it moves with load.
//
//   node bench/first-message.mjs [PKG_DIR=pkg] [ROUNDS=30] [TESTS_PER_ROUND=50] [PROCESSES=15]
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [pkgArg = "pkg", roundsArg = "30", perRoundArg = "50", processesArg = "15"] = process.argv.slice(2);
const pkg = resolve(pkgArg);
const entry = pathToFileURL(pkg + "/entry/node.js").href;
const [ROUNDS, PER_ROUND, PROCESSES] = [roundsArg, perRoundArg, processesArg].map(Number);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const ms = (x) => x.toFixed(2) + " ms";

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

// 2 and 3, warm.
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

async function inProcessTest() {
  const engine = new Engine({ clock: new ManualClock(START), defaultHost: "sqs.local" });
  const { QueueUrl } = engine.createQueue({ QueueName: "jobs" });
  const sqs = client(createRequestHandler(engine));
  await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: "hello" }));
  const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl }));
  await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: Messages[0].ReceiptHandle }));
  engine.close();
}

// The canned answers: the engine's own, recorded once, replayed by target. The SDK checks the
// MD5s in them against what it sent, so the test sends the same body.
const canned = new Map();
{
  const engine = new Engine({ clock: new ManualClock(START), defaultHost: "sqs.local" });
  const real = createRequestHandler(engine);
  const recorder = {
    ...real,
    metadata: real.metadata,
    async handle(request, options) {
      const out = await real.handle(request, options);
      canned.set(request.headers["x-amz-target"], out.response);
      return out;
    },
  };
  const { QueueUrl } = engine.createQueue({ QueueName: "jobs" });
  const sqs = client(recorder);
  await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: "hello" }));
  const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl }));
  await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: Messages[0].ReceiptHandle }));
  engine.close();
}
const cannedHandler = {
  metadata: { handlerProtocol: "http/1.1" },
  async handle(request) {
    const r = canned.get(request.headers["x-amz-target"]);
    return { response: { statusCode: r.statusCode, headers: { ...r.headers }, body: r.body } };
  },
  updateHttpClientConfig() {},
  httpHandlerConfigs: () => ({}),
  destroy() {},
};
const QueueUrl = "http://sqs.local/000000000000/jobs";
async function floorTest() {
  const sqs = client(cannedHandler);
  await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: "hello" }));
  const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl }));
  await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: Messages[0].ReceiptHandle }));
}

// Per-test CPU time (user + system) of this process: on a loaded machine the waits for a core
// inflate wall-clock time by several times, and unevenly; CPU time counts only the work.
async function round(test) {
  const t0 = process.cpuUsage();
  for (let i = 0; i < PER_ROUND; i++) await test();
  const { user, system } = process.cpuUsage(t0);
  return (user + system) / 1000 / PER_ROUND;
}
// Warm both paths before measuring.
await round(inProcessTest);
await round(floorTest);
const inProcess = [];
const floor = [];
const ratios = [];
for (let r = 0; r < ROUNDS; r++) {
  // Alternate which goes first, so neither always runs right after the other's garbage.
  const [a, b] = r % 2 ? [await round(floorTest), await round(inProcessTest)] : [null, null];
  const inp = a === null ? await round(inProcessTest) : b;
  const flo = a === null ? await round(floorTest) : a;
  inProcess.push(inp);
  floor.push(flo);
  ratios.push(inp / flo);
}

console.log(`node ${process.version}, ${pkg}`);
console.log(`start-up (median of ${PROCESSES} fresh processes): import ${ms(median(imports))}, first engine + CreateQueue ${ms(median(firsts))}`);
console.log(`warm test, CPU time (median of ${ROUNDS} rounds x ${PER_ROUND}): in-process ${ms(median(inProcess))}, SDK floor (canned answers) ${ms(median(floor))}`);
console.log(`in-process / floor: median ${median(ratios).toFixed(2)}x (per-round ratios ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})`);
