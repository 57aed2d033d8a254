// Two built packages side by side in one run: what users see, before and after a change.
// scripts/bench-compare.sh is the command (it snapshots the two directories first); this file
// runs the rounds and prints the table that BENCHMARKS.md quotes.
//
//   node bench/compare.mjs --before DIR --after DIR [--rounds 5] [--seconds 2]
//        [--server-runs 5] [--server-duration 5] [--native BEFORE_SRC AFTER_SRC]
//        [--skip cycle,restore,server,native] [--label-before TEXT] [--label-after TEXT]
//
// Figures, each a median over rounds in which the two builds take turns (before first in odd
// rounds, after first in even ones), so that a change in the machine's load reaches both alike:
// - the package's single and batched (10 a call) send → receive → delete cycle through
//   `Engine.dispatch` with `new Engine({ clock })` (bench/package.mjs, layer engine-default);
// - instantiating the package, and recovering 100,000 messages from MemoryStorage and from
//   FileStorage: the first `new Engine` over the store in a fresh process (bench/restore.mjs);
// - `wasq serve` SendMessage requests/s at 32 connections, `--memory` and `--data` (autocannon,
//   scripts/bench-server.mjs, runs interleaved across the four servers);
// - the gzipped size the package budget counts (bench/size.mjs);
// - with --native, the native cycle of benches/cycle.rs built from each source tree (information
//   only: no product runs native code).
// Raw samples go to target/bench-compare.jsonl.

import { execFileSync, spawn, spawnSync } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { packageSize } from "./size.mjs";

const REPO = resolve(import.meta.dirname, "..");
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};
const BEFORE = resolve(opt("--before", ""));
const AFTER = resolve(opt("--after", ""));
const ROUNDS = Number(opt("--rounds", "5"));
const SECONDS = opt("--seconds", "2");
const SERVER_RUNS = opt("--server-runs", "5");
const SERVER_DURATION = opt("--server-duration", "5");
const SKIP = new Set(opt("--skip", "").split(",").filter(Boolean));
const LABEL_BEFORE = opt("--label-before", BEFORE);
const LABEL_AFTER = opt("--label-after", AFTER);
const nativeAt = args.indexOf("--native");
const NATIVE = nativeAt >= 0 ? { before: resolve(args[nativeAt + 1]), after: resolve(args[nativeAt + 2]) } : null;
if (!opt("--before", "") || !opt("--after", "")) {
  console.error("usage: node bench/compare.mjs --before DIR --after DIR [options] (see the file's head)");
  process.exit(2);
}
const SIDES = { before: BEFORE, after: AFTER };
const OUT = join(REPO, "target/bench-compare.jsonl");
mkdirSync(join(REPO, "target/bench-compare"), { recursive: true });
writeFileSync(OUT, "");

const log = (line) => process.stderr.write(`bench-compare: ${line}\n`);
const rows = [];
function record(row) {
  rows.push(row);
  writeFileSync(OUT, JSON.stringify(row) + "\n", { flag: "a" });
}

/** Runs a node script or an executable; returns its stdout's JSON lines. */
function jsonLines(file, argv, { node = true } = {}) {
  // NODE_NO_WARNINGS: the AWS SDK warns about Node 20 on every load.
  const [cmd, cmdArgs] = node ? [process.execPath, ["--expose-gc", file, ...argv]] : [file, argv];
  const out = execFileSync(cmd, cmdArgs, {
    cwd: REPO,
    env: { ...process.env, NODE_NO_WARNINGS: "1" },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 1 << 24,
  });
  return out.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
}

/** Before first in odd rounds, after first in even ones. */
const order = (round) => (round % 2 ? ["before", "after"] : ["after", "before"]);

const loadStart = loadavg()[0];
const started = new Date();

// --- native: one bench executable per source tree, built before any round runs.
const nativeExe = {};
if (NATIVE && !SKIP.has("native")) {
  for (const side of ["before", "after"]) {
    log(`building benches/cycle.rs in ${NATIVE[side]} (release, LTO: minutes)`);
    // A target dir of its own, so the build does not wait on the tree's other builds and the two
    // trees' executables do not overwrite each other.
    const messages = execFileSync(
      "cargo",
      ["bench", "--bench", "cycle", "--no-run", "--message-format=json", "--target-dir", join(REPO, `target/bench-compare/native-${side}`)],
      { cwd: NATIVE[side], encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], maxBuffer: 1 << 26 },
    );
    nativeExe[side] = execFileSync(process.execPath, ["scripts/bench-executable.mjs", "cycle"], { cwd: REPO, input: messages, encoding: "utf8" });
    if (!nativeExe[side]) throw new Error(`cargo built no cycle bench in ${NATIVE[side]}`);
  }
}

// --- the package's cycle, recovery, and the native cycle: rounds of alternating turns.
for (let round = 1; round <= ROUNDS; round++) {
  log(`round ${round}/${ROUNDS} (load ${loadavg()[0].toFixed(1)})`);
  for (const side of order(round)) {
    if (!SKIP.has("cycle")) {
      const lines = jsonLines("bench/package.mjs", ["--pkg", SIDES[side], "--only", "cycle", "--layers", "engine-default", "--seconds", SECONDS]);
      for (const l of lines) {
        record({ round, side, figure: `cycle-${l.workload}-cpu`, value: l.messages_per_cpu_s });
        record({ round, side, figure: `cycle-${l.workload}`, value: l.messages_per_s });
      }
    }
    if (!SKIP.has("restore")) {
      for (const storage of ["memory", "file"]) {
        const [l] = jsonLines("bench/restore.mjs", ["--pkg", SIDES[side], "--storage", storage]);
        if (storage === "memory") {
          record({ round, side, figure: "instantiate-cpu", value: l.instantiate_cpu_ms });
          record({ round, side, figure: "instantiate", value: l.instantiate_ms });
        }
        record({ round, side, figure: `restore-${storage}-cpu`, value: l.first_restore_cpu_ms });
        record({ round, side, figure: `restore-${storage}`, value: l.first_restore_ms });
      }
    }
    if (nativeExe[side]) {
      for (const l of jsonLines(nativeExe[side], ["--mode", "cycle", "--seconds", SECONDS], { node: false })) {
        if (l.layer === "core") record({ round, side, figure: `native-${l.workload}`, value: l.messages_per_s });
      }
    }
  }
}

// --- wasq serve: four servers, one autocannon run after another across them, interleaved.
if (!SKIP.has("server")) {
  const servers = [];
  const dataDirs = [];
  const serve = (pkg, flags) =>
    new Promise((ok, fail) => {
      const child = spawn(process.execPath, [join(pkg, "bin/wasq.mjs"), "serve", "--port", "0", ...flags], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      servers.push(child);
      const pid = child.pid;
      let out = "";
      const onData = (chunk) => {
        out += chunk;
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m) {
          child.stdout.off("data", onData);
          child.stdout.resume(); // drain whatever it writes later
          ok(`${m[1]}@${pid}`);
        }
      };
      child.stdout.on("data", onData);
      child.once("exit", (code) => fail(new Error(`wasq serve ${flags.join(" ")} from ${pkg} exited ${code}: ${out}`)));
    });
  try {
    const targets = [];
    for (const side of ["before", "after"]) targets.push([`${side} --memory`, await serve(SIDES[side], ["--memory"])]);
    for (const side of ["before", "after"]) {
      // In the repository's target/, not the temporary directory, which may be a tmpfs where
      // fsync costs nothing.
      const dir = mkdtempSync(join(REPO, "target/bench-compare/data-"));
      dataDirs.push(dir);
      targets.push([`${side} --data`, await serve(SIDES[side], ["--data", dir])]);
    }
    const json = join(REPO, "target/bench-compare-server.json");
    log(`wasq serve SendMessage, ${SERVER_RUNS} runs × ${SERVER_DURATION} s per server (load ${loadavg()[0].toFixed(1)})`);
    const r = spawnSync(
      process.execPath,
      ["scripts/bench-server.mjs", "--only", "send", "--connections", "32", "--runs", SERVER_RUNS, "--duration", SERVER_DURATION, "--json", json, ...targets.map(([label, url]) => `${label}=${url}`)],
      { cwd: REPO, stdio: ["ignore", "ignore", "inherit"] },
    );
    if (r.status !== 0) throw new Error(`scripts/bench-server.mjs exited ${r.status}`);
    for (const result of Object.values(JSON.parse(readFileSync(json, "utf8")))) {
      const [side, mode] = result.target.split(" ");
      result.samples.forEach((s, i) => {
        if (s.non2xx || s.errors || s.timeouts) {
          throw new Error(`${result.target}: ${s.non2xx} non-2xx answers, ${s.errors + s.timeouts} errors in run ${i + 1}`);
        }
        record({ round: i + 1, side, figure: `serve${mode}-cpu`, value: s.rpcs });
        record({ round: i + 1, side, figure: `serve${mode}`, value: s.rps });
      });
    }
  } finally {
    for (const child of servers) child.kill("SIGTERM");
    await Promise.all(servers.map((c) => (c.exitCode === null ? new Promise((ok) => c.once("exit", ok)) : null)));
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  }
}

for (const side of ["before", "after"]) record({ round: 1, side, figure: "size", value: packageSize(SIDES[side]).largest });

// --- the table.
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const samples = (side, figure) => rows.filter((r) => r.side === side && r.figure === figure).map((r) => r.value);
const fmt = (x, digits) => x.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
// [figure, label, unit digits, what the ratio must stay within, or null for information only]
// The figures are judged by CPU time (user + system, all threads; the server's own process for
// wasq serve): on a shared machine, waiting for a core inflates the wall clock by whatever else
// runs, and that swamps a 10 % difference; CPU time moves far less. The wall-clock figures follow
// for reference.
const FIGURES = [
  ["cycle-single-cpu", "package single cycle, `Engine.dispatch`, msg/s of CPU time", 0, (x) => x >= 0.9],
  ["cycle-batch10-cpu", "package batched cycle (10 a call), msg/s of CPU time", 0, (x) => x >= 0.9],
  ["serve--memory-cpu", "`wasq serve --memory` SendMessage, 32 connections, req/s of the server's CPU time", 0, (x) => x >= 0.9],
  ["serve--data-cpu", "`wasq serve --data` SendMessage, 32 connections, req/s of the server's CPU time", 0, (x) => x >= 0.9],
  ["instantiate-cpu", "instantiate the package, ms of CPU time (lower is better)", 1, null],
  ["restore-memory-cpu", "recover 100,000 messages, MemoryStorage, ms of CPU time (lower is better)", 1, null],
  ["restore-file-cpu", "recover 100,000 messages, FileStorage, ms of CPU time (lower is better)", 1, null],
  ["size", "package, largest entry gzipped, KB (budget ≤ 210)", 1, null],
  ["native-single", "native single cycle, msg/s (information only)", 0, null],
  ["native-batch10", "native batched cycle, msg/s (information only)", 0, null],
  ["serve--memory", "`wasq serve --memory` SendMessage req/s by the wall clock", 0, null],
  ["serve--data", "`wasq serve --data` SendMessage req/s by the wall clock", 0, null],
  ["cycle-single", "package single cycle, msg/s by the wall clock", 0, null],
  ["cycle-batch10", "package batched cycle, msg/s by the wall clock", 0, null],
  ["instantiate", "instantiate, ms by the wall clock", 1, null],
  ["restore-memory", "recover, MemoryStorage, ms by the wall clock", 1, null],
  ["restore-file", "recover, FileStorage, ms by the wall clock", 1, null],
];
const loadEnd = loadavg()[0];
const model = (cpus()[0]?.model ?? "unknown").trim();
const lines = [
  `${started.toISOString().slice(0, 16).replace("T", " ")} UTC, ${model}, ${cpus().length} cores, node ${process.version}, ` +
    `load average ${loadStart.toFixed(1)} → ${loadEnd.toFixed(1)}; medians of ${ROUNDS} alternating rounds ` +
    `(server: ${SERVER_RUNS} interleaved runs of ${SERVER_DURATION} s)`,
  `before = ${LABEL_BEFORE}, after = ${LABEL_AFTER}`,
  "",
  `| figure | before | after | after ÷ before | may drop ≤ 10 % |`,
  `|---|---:|---:|---:|---|`,
];
for (const [figure, label, digits, within] of FIGURES) {
  const b = samples("before", figure);
  const a = samples("after", figure);
  if (!b.length || !a.length) continue;
  const scale = figure === "size" ? 1 / 1024 : 1;
  const [mb, ma] = [median(b) * scale, median(a) * scale];
  const ratio = ma / mb;
  const verdict = within ? (within(ratio) ? "ok: ≥ 0.90" : "**dropped by more than 10 %**") : "";
  lines.push(`| ${label} | ${fmt(mb, digits)} | ${fmt(ma, digits)} | ${ratio.toFixed(2)} | ${verdict} |`);
}
lines.push("", "Samples (before | after), in round order:");
for (const [figure, , digits] of FIGURES) {
  const b = samples("before", figure);
  const a = samples("after", figure);
  if (b.length > 1) lines.push(`- ${figure}: ${b.map((x) => fmt(x, digits)).join(" ")} | ${a.map((x) => fmt(x, digits)).join(" ")}`);
}
process.stdout.write(lines.join("\n") + "\n");
