// The README's AWS CLI commands, run as a new user pastes them: extracted from README.md (so the
// test follows the README), in a shell whose HOME is empty (no ~/.aws/config, no credentials file)
// and with no AWS_* variable inherited, against a running `wasq serve`. The README's first CLI
// command used to fail there ("You must specify a region", then "Unable to locate credentials").
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot, startWasq, tempDir, removeDir } from "./helpers.mjs";

const venvBin = join(repoRoot, ".venv", "bin");
const README_PORT = "127.0.0.1:9324";

/** The README's ```sh blocks that run the AWS CLI, each as its lines. */
export function cliBlocks(markdown) {
  const blocks = [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  return blocks.filter((b) => /^aws /m.test(b));
}

let wasq;
let home;
before(async () => {
  assert.ok(existsSync(join(venvBin, "aws")), "the AWS CLI is missing: scripts/test-clients.sh installs it into .venv");
  wasq = await startWasq(["--memory"]);
  home = tempDir("wasq-readme-home-");
});
after(async () => {
  await wasq?.stop();
  if (home) removeDir(home);
});

/** Runs a README's CLI blocks as pasted, `address` (the one the README's server listens on) replaced. */
function runBlocks(file, address) {
  const blocks = cliBlocks(readFileSync(join(repoRoot, file), "utf8"));
  assert.ok(blocks.length > 0, `${file} has no \`\`\`sh block with an aws command`);
  // Only what a fresh shell has: PATH (with the CLI on it) and the empty HOME.
  const env = { PATH: `${venvBin}:/usr/bin:/bin`, HOME: home, LANG: "C.UTF-8" };
  const outputs = [];
  for (const block of blocks) {
    assert.match(block, new RegExp(address.replace(/\./g, "\\.")), `${file}'s commands name the address its server listens on`);
    // The server under test listens on a free port, not on the README's one other runs may hold.
    const script = block.replaceAll(address, new URL(wasq.url).host);
    outputs.push(execFileSync("bash", ["--norc", "--noprofile", "-euo", "pipefail", "-c", script], { env, cwd: home, encoding: "utf8" }));
  }
  return outputs.join("\n");
}

test("the README's AWS CLI commands run as pasted, with an empty HOME and no AWS settings", () => {
  const all = runBlocks("README.md", README_PORT);
  // create-queue printed its URL, send-message an id, receive-message the body sent.
  assert.match(all, /"QueueUrl": "http:\/\/[^"]+\/000000000000\/jobs"/);
  assert.match(all, /"MessageId": "[0-9a-f-]{36}"/);
  assert.match(all, /"Body": "hello"/);
});

test("the package README's AWS CLI commands run as pasted against `npx wasq serve --memory --port 9500`", () => {
  const readme = readFileSync(join(repoRoot, "pkg-template", "README.md"), "utf8");
  // The server command the CLI lines are written for, shown just above them.
  assert.match(readme, /^npx wasq serve --memory --port 9500$/m);
  const all = runBlocks("pkg-template/README.md", "127.0.0.1:9500");
  assert.match(all, /"QueueUrl": "http:\/\/[^"]+\/000000000000\/jobs"/);
});
