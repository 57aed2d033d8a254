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

test("the README's AWS CLI commands run as pasted, with an empty HOME and no AWS settings", () => {
  const blocks = cliBlocks(readFileSync(join(repoRoot, "README.md"), "utf8"));
  assert.ok(blocks.length > 0, "README.md has no ```sh block with an aws command");
  // Only what a fresh shell has: PATH (with the CLI on it) and the empty HOME.
  const env = { PATH: `${venvBin}:/usr/bin:/bin`, HOME: home, LANG: "C.UTF-8" };
  const outputs = [];
  for (const block of blocks) {
    assert.match(block, new RegExp(README_PORT.replace(/\./g, "\\.")), "the README's commands name wasq serve's default address");
    // The server under test listens on a free port, not on the default one other runs may hold.
    const script = block.replaceAll(README_PORT, new URL(wasq.url).host);
    outputs.push(execFileSync("bash", ["--norc", "--noprofile", "-euo", "pipefail", "-c", script], { env, cwd: home, encoding: "utf8" }));
  }
  const all = outputs.join("\n");
  // create-queue printed its URL, send-message an id, receive-message the body sent.
  assert.match(all, /"QueueUrl": "http:\/\/[^"]+\/000000000000\/jobs"/);
  assert.match(all, /"MessageId": "[0-9a-f-]{36}"/);
  assert.match(all, /"Body": "hello"/);
});
