// Shared by the real-client tests: start `wasq serve` as a child process on a free port (the
// same command a user runs), and build SDK clients pointed at it.

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { SQSClient } from "@aws-sdk/client-sqs";

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** WASQ_BIN: test another build of the CLI (default: the built package, `make pkg`). */
export const wasqBin = process.env.WASQ_BIN ? resolve(process.env.WASQ_BIN) : join(repoRoot, "pkg", "bin", "wasq.mjs");

export const ACCESS_KEY = "AKIDWASQTEST";
export const SECRET_KEY = "wasq-test-secret";

export function tempDir(prefix = "wasq-clients-") {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function removeDir(dir) {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Start `wasq serve --port 0 …args` and resolve once it prints its address. `env`: the child's
 * environment; `nodeArgs`: options for node itself (`--import` a module first, say).
 * @returns {Promise<{ url: string, port: number, child: import("node:child_process").ChildProcess,
 *   stdout: () => string, stderr: () => string, stop(signal?: string): Promise<number|null> }>}
 */
export function startWasq(args = [], { port = 0, cwd = repoRoot, env = process.env, nodeArgs = [], bin = wasqBin } = {}) {
  const child = spawn(process.execPath, [...nodeArgs, bin, "serve", "--port", String(port), ...args], {
    cwd,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8");
  child.stderr.setEncoding("utf8");
  const exited = new Promise((done) => child.once("exit", (code) => done(code)));
  return new Promise((ok, fail) => {
    let started = false;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      fail(new Error(`wasq serve did not start within 15 s\nstdout: ${out}\nstderr: ${err}`));
    }, 15_000);
    child.stderr.on("data", (d) => (err += d));
    child.stdout.on("data", (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m && !started) {
        started = true;
        clearTimeout(timer);
        const url = m[1];
        ok({
          url,
          port: Number(new URL(url).port),
          child,
          stdout: () => out,
          stderr: () => err,
          exited,
          async stop(signal = "SIGTERM") {
            if (child.exitCode === null && child.signalCode === null) child.kill(signal);
            return exited;
          },
        });
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      if (!started) fail(new Error(`wasq serve exited with ${code} before listening\nstdout: ${out}\nstderr: ${err}`));
    });
  });
}

/** An SQS client as an application would build one: real HTTP, MD5 checks on (the default). */
export function client(url, { accessKeyId = ACCESS_KEY, secretAccessKey = SECRET_KEY, region = "us-east-1", ...rest } = {}) {
  return new SQSClient({
    endpoint: url,
    region,
    credentials: { accessKeyId, secretAccessKey },
    maxAttempts: 1,
    ...rest,
  });
}

/** Resolve with the rejection of `promise` (fails the test if it resolves). */
export async function rejection(promise) {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error("expected the call to fail, but it succeeded");
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A queue name unique to this run (queues outlive a test within one server). */
let counter = 0;
export function uniqueName(prefix, fifo = false) {
  counter++;
  return `${prefix}-${process.pid}-${counter}-${Date.now() % 100000}${fifo ? ".fifo" : ""}`;
}
