// The READMEs' examples, run as pasted, against the built package and the AWS SDK.
//
// The package README's Testing example runs as a test file (taken from pkg-template/README.md, so
// this test follows the README), its Vitest/Jest `test`, `beforeEach`, `afterEach` and `expect`
// given by node:test and node:assert. A test appended after the README's own checks the promise
// the section opens with, "one engine per test, closed in afterEach": the README once built its
// engine at the top of the file and closed it after the first test, so a reader's second test
// failed with EngineClosedError. The first example of each README runs as a module.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("../../", import.meta.url));

/** The first ```js block of the README section whose heading starts with `heading`. */
export function sectionExample(markdown, heading) {
  const start = markdown.indexOf(`\n## ${heading}`);
  assert.ok(start >= 0, `the README has a "## ${heading}" section`);
  const end = markdown.indexOf("\n## ", start + 1);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  const block = /^```js\n([\s\S]*?)^```$/m.exec(section);
  assert.ok(block, `the "${heading}" section has a js example`);
  return block[1];
}

// Jest's and Vitest's `expect`, as far as the README uses it, on node:assert.
const HARNESS = `import { test, beforeEach, afterEach } from "node:test";
import assert from "node:assert/strict";
const expect = (actual) => ({
  toBe: (expected) => assert.equal(actual, expected),
  toEqual: (expected) => assert.deepEqual(actual, expected),
  toBeUndefined: () => assert.equal(actual, undefined),
  toHaveLength: (n) => assert.equal(actual?.length, n),
});
`;

// What a reader adds when the example names no imports of its own.
const IMPORTS = `import { Engine, ManualClock, createRequestHandler } from "wasq";
import { SQSClient, SendMessageCommand, ReceiveMessageCommand } from "@aws-sdk/client-sqs";
`;

// A reader's next test, after the README's: it gets an engine of its own, open and empty.
const NEXT_TEST = `
test("a test after the README's has an engine of its own", async () => {
  assert.deepEqual(engine.listQueues({}).QueueUrls ?? [], []);
  const { QueueUrl } = engine.createQueue({ QueueName: "jobs" });
  await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: "mine" }));
  const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl }));
  assert.equal(got.Messages?.[0]?.Body, "mine");
});
`;

let work;
before(() => {
  if (!existsSync(join(repo, "pkg", "package.json"))) throw new Error("no built package: run `make pkg` first");
  work = mkdtempSync(join(tmpdir(), "wasq-readme-examples-"));
  // A project where `wasq` is the built package and the SDK is the repository's.
  mkdirSync(join(work, "node_modules", "@aws-sdk"), { recursive: true });
  symlinkSync(join(repo, "pkg"), join(work, "node_modules", "wasq"), "dir");
  symlinkSync(join(repo, "node_modules", "@aws-sdk", "client-sqs"), join(work, "node_modules", "@aws-sdk", "client-sqs"), "dir");
  writeFileSync(join(work, "package.json"), JSON.stringify({ name: "readme-examples", private: true, type: "module" }));
});
after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

test("the package README's Testing example passes as a test file, and a reader's next test gets its own engine", () => {
  const example = sectionExample(readFileSync(join(repo, "pkg-template", "README.md"), "utf8"), "Testing");
  // The runner's own imports are the harness's; the rest of the example is kept as written.
  const body = example.replace(/^import [^\n]* from "(?:vitest|@jest\/globals)";[^\n]*\n/m, "");
  const imports = /from "wasq"/.test(body) ? "" : IMPORTS;
  const file = join(work, "readme.test.mjs");
  writeFileSync(file, HARNESS + imports + body + NEXT_TEST);
  // A runner of its own, not a subtest of this one (node:test marks its children by this variable).
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  const run = spawnSync(process.execPath, ["--test", "--test-reporter=tap", file], { cwd: work, env, encoding: "utf8", timeout: 60_000 });
  const output = run.stdout + run.stderr;
  assert.equal(run.status, 0, output);
  // The README's tests ran too, not only the appended one.
  const passed = Number(/^# pass (\d+)/m.exec(output)?.[1]);
  assert.ok(passed >= 2, output);
});

// The first example of each README, run as a module as pasted, with a check of what its comments
// say it shows appended (it names its own imports).
for (const [file, check] of [
  ["README.md", `if (first.Messages?.[0]?.Body !== "hello" || again.Messages?.[0]?.Body !== "hello") throw new Error("not received, then visible again after 12 hours");`],
  ["pkg-template/README.md", `if (Messages?.[0]?.Body !== "hello") throw new Error("not received");\nif (engine.peek(QueueUrl).messages[0].state !== "stored") throw new Error("not visible again after 12 hours");`],
]) {
  test(`${file}'s first example runs as pasted`, () => {
    const example = /^```js\n([\s\S]*?)^```$/m.exec(readFileSync(join(repo, file), "utf8"))?.[1];
    assert.ok(example, `${file} has a js example`);
    const path = join(work, `first-${file.replaceAll("/", "-")}.mjs`);
    writeFileSync(path, `${example}\n${check}\n`);
    const run = spawnSync(process.execPath, [path], { cwd: work, encoding: "utf8", timeout: 60_000 });
    assert.equal(run.status, 0, run.stdout + run.stderr);
  });
}
