// examples/edge as a deployer uses it: copied out of the repository, installed with npm (wasq from
// the packed tarball, wrangler from its own devDependencies), `.dev.vars` made from the example
// file, `npm run dev` (wrangler dev, workerd on loopback), then driven by the AWS SDK. Copied out,
// the example used to fail twice: its `file:../../pkg` dependency dangled and wrangler was no
// dependency at all; with no `.dev.vars` every request was answered 500.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  SQSClient, CreateQueueCommand, SendMessageCommand, ReceiveMessageCommand, DeleteMessageCommand, ListQueuesCommand,
} from "@aws-sdk/client-sqs";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
let work;
let app;
let installWarnings;
let devServer; // wrangler's process group, stopped even after a test that timed out

before(() => {
  if (!existsSync(join(ROOT, "pkg", "package.json"))) throw new Error("no built package: run `make pkg` first");
  work = mkdtempSync(join(tmpdir(), "wasq-edge-example-"));
  const packed = JSON.parse(execFileSync("npm", ["pack", join(ROOT, "pkg"), "--pack-destination", work, "--json"], { encoding: "utf8" }));
  app = join(work, "wasq-edge");
  // What is in the repository, not what an earlier run in examples/edge left there.
  const skip = new Set(["node_modules", ".wrangler", ".dev.vars", "package-lock.json"]);
  cpSync(join(ROOT, "examples", "edge"), app, { recursive: true, filter: (src) => !skip.has(src.split("/").at(-1)) });
  // The README's commands: the tarball replaces the in-repo link, wrangler comes from npm.
  const install = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", join(work, packed[0].filename)], {
    cwd: app,
    encoding: "utf8",
  });
  assert.equal(install.status, 0, install.stderr);
  installWarnings = install.stderr.split("\n").filter((line) => /^npm warn/.test(line));
  cpSync(join(app, ".dev.vars.example"), join(app, ".dev.vars"));
});

after(() => {
  if (devServer !== undefined) {
    try {
      process.kill(-devServer, "SIGTERM");
    } catch {}
  }
  rmSync(work, { recursive: true, force: true });
});

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer().once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

test("the install prints no warning (the example's allowScripts covers its dependencies' install scripts)", () => {
  assert.deepEqual(installWarnings, []);
});

test("the package.json the example was installed from names the tarball, and wrangler as a devDependency", () => {
  const pkg = JSON.parse(readFileSync(join(app, "package.json"), "utf8"));
  assert.match(pkg.dependencies.wasq, /^file:.*wasq-[\d.]+\.tgz$/);
  assert.ok(pkg.devDependencies.wrangler, "wrangler is the example's own devDependency");
  assert.ok(existsSync(join(app, "node_modules", ".bin", "wrangler")));
});

// Wrangler refuses Node < 22; scripts/test-edge.sh runs this suite on Node 22 (scripts/ensure-node.sh).
const oldNode = Number(process.versions.node.split(".")[0]) < 22 && "wrangler needs Node >= 22 (run through scripts/test-edge.sh)";

// The timeout bounds a wrangler that never gets ready (a hang otherwise), it measures nothing.
test("npm run dev (wrangler dev) on loopback serves SQS to the AWS SDK with the .dev.vars key pair", { skip: oldNode, timeout: 300_000 }, async () => {
  const port = await freePort();
  const child = spawn("npm", ["run", "dev", "--", "--ip", "127.0.0.1", "--port", String(port)], {
    cwd: app,
    detached: true, // npm, wrangler and workerd are stopped together, as a process group
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      // No network but the npm registry here: no usage metrics, no update notice.
      WRANGLER_SEND_METRICS: "false",
      CI: "true",
      NO_UPDATE_NOTIFIER: "1",
      // wrangler keeps its config and logs under HOME: a temporary one, as on a fresh machine.
      HOME: work,
      XDG_CONFIG_HOME: join(work, ".config"),
    },
  });
  devServer = child.pid;
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (d) => (out += d));
  child.stderr.setEncoding("utf8").on("data", (d) => (out += d));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  try {
    await Promise.race([
      new Promise((resolve) => {
        const check = () => /Ready on http:\/\/127\.0\.0\.1/.test(out) && resolve();
        child.stdout.on("data", check);
        child.stderr.on("data", check);
      }),
      exited.then((code) => assert.fail(`wrangler dev exited with ${code} before it was ready:\n${out}`)),
    ]);
    const endpoint = `http://127.0.0.1:${port}`;
    const sqs = new SQSClient({ region: "us-east-1", endpoint, credentials: { accessKeyId: "test", secretAccessKey: "test" } });
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: "demo" }));
    assert.match(QueueUrl, /\/demo$/);
    const { MessageId } = await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: "from the copied example" }));
    const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 1 }));
    assert.deepEqual(Messages.map((m) => [m.MessageId, m.Body]), [[MessageId, "from the copied example"]]);
    await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: Messages[0].ReceiptHandle }));
    // Signed with another secret: refused, so the key pair in .dev.vars is the one checked.
    const stranger = new SQSClient({ region: "us-east-1", endpoint, credentials: { accessKeyId: "test", secretAccessKey: "other" }, maxAttempts: 1 });
    await assert.rejects(stranger.send(new ListQueuesCommand({})), { name: "SignatureDoesNotMatch" });
  } finally {
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {}
    await exited;
    devServer = undefined;
  }
});
