#!/usr/bin/env bash
# The wasm package benchmark, native and Node side by side in one run (BENCHMARKS.md, "wasm
# package (Node)"): several rounds, each running the native bench (benches/cycle.rs) and then the
# Node bench (bench/package.mjs) on the same machine, alternating, so both see the same load.
# Prints medians per figure and the wasm/native ratios; raw samples go to
# target/bench-package.jsonl.
#
#   scripts/bench-package.sh [--rounds N] [--seconds S] [--no-build] [--no-sdk] [--baseline DIR]
#                            [--restore-only]
#
# It benchmarks a snapshot of pkg/ (copied after building) so that another build of pkg/ during
# the run cannot change what is measured half-way. --baseline DIR also runs the Node bench on
# another built package (say, a copy of pkg/ from before a change) in every round, right after
# the current one, and the summary shows both side by side. --restore-only runs only
# bench/restore.mjs (instantiate + recover 100,000 messages: a standard and a FIFO queue in
# MemoryStorage, a standard queue in FileStorage), current and baseline alternately, no native side.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=3
seconds=2
build=1
baseline=""
restore_only=0
node_flags=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    --no-sdk) node_flags+=(--no-sdk); shift ;;
    --baseline) baseline="$2"; shift 2 ;;
    --restore-only) restore_only=1; shift ;;
    *) echo "bench-package: unknown argument $1" >&2; exit 2 ;;
  esac
done

if [[ $build == 1 ]]; then
  bash scripts/build-pkg.sh
fi
readonly SNAP=target/bench-package/pkg
rm -rf "$SNAP"
mkdir -p "$(dirname "$SNAP")"
cp -R pkg "$SNAP"
readonly BASE_SNAP=target/bench-package/pkg-baseline
rm -rf "$BASE_SNAP"
if [[ -n "$baseline" ]]; then
  if [[ ! -f "$baseline/entry/node.js" ]]; then
    echo "bench-package: --baseline $baseline is not a built package (no entry/node.js)" >&2
    exit 2
  fi
  cp -R "$baseline" "$BASE_SNAP"
fi

if [[ $restore_only == 1 ]]; then
  readonly RESTORE_OUT=target/bench-restore.jsonl
  : >"$RESTORE_OUT"
  echo "bench-package: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), node $(node --version)," \
    "$rounds rounds of recovery only"
  for round in $(seq 1 "$rounds"); do
    for setup in "standard memory" "fifo memory" "standard file"; do
      read -r queue storage <<<"$setup"
      sides=("wasm $SNAP")
      [[ -n "$baseline" ]] && sides+=("baseline $BASE_SNAP")
      for side in "${sides[@]}"; do
        read -r name dir <<<"$side"
        NODE_NO_WARNINGS=1 node --expose-gc bench/restore.mjs --pkg "$dir" --queue "$queue" --storage "$storage" |
          sed "s/^{/{\"round\":$round,\"side\":\"$name\",/" >>"$RESTORE_OUT"
      done
    done
  done
  echo "bench-package: load $(cut -d' ' -f1-3 /proc/loadavg) after the run"
  node --input-type=module - "$RESTORE_OUT" <<'JS'
import { readFileSync } from "node:fs";
const rows = readFileSync(process.argv[2], "utf8").trim().split("\n").map((l) => JSON.parse(l));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const base = rows.some((r) => r.side === "baseline");
const rounds = new Set(rows.map((r) => r.round)).size;
console.log(`\nInstantiate + recover 100,000 messages, ms, medians of ${rounds} rounds (target < 300)\n`);
console.log(`| queue, storage | figure |${base ? " baseline |" : ""} now |${base ? " × |" : ""}`);
console.log(`|---|---|${base ? "---:|" : ""}---:|${base ? "---:|" : ""}`);
for (const [queue, storage] of [["standard", "memory"], ["fifo", "memory"], ["standard", "file"]]) {
  for (const [f, label] of [["instantiate_ms", "instantiate"], ["first_restore_ms", "first recover"], ["restore_ms", "recover, median of 5"], ["total_ms", "instantiate + first recover"]]) {
    const of = (side) => median(rows.filter((r) => r.side === side && r.queue === queue && r.storage === storage).map((r) => r[f]));
    const now = of("wasm");
    const was = of("baseline");
    console.log(`| ${queue}, ${storage} | ${label} |${base ? ` ${was.toFixed(1)} |` : ""} ${now.toFixed(1)} |${base ? ` ${(was / now).toFixed(2)} |` : ""}`);
  }
}
JS
  exit 0
fi

# The bench binary's path, so that rounds run it directly instead of through cargo. Its own
# target dir: the shared one's lock is often held by other builds and tests for minutes.
native=$(cargo bench --bench cycle --no-run --message-format=json \
  --target-dir "${BENCH_TARGET_DIR:-target/bench-package/cargo}" 2>/dev/null |
  node scripts/bench-executable.mjs cycle)
if [[ -z "$native" ]]; then
  echo "bench-package: could not build benches/cycle.rs (cargo bench --bench cycle --no-run)" >&2
  exit 1
fi

readonly OUT=target/bench-package.jsonl
: >"$OUT"
echo "bench-package: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), node $(node --version)," \
  "$rounds rounds of ${seconds}s per figure"
for round in $(seq 1 "$rounds"); do
  echo "bench-package: round $round/$rounds: native"
  for mode in cycle restore memory; do
    "$native" --mode "$mode" --seconds "$seconds" | sed "s/^{/{\"round\":$round,/" >>"$OUT"
  done
  echo "bench-package: round $round/$rounds: wasm package in Node"
  # NODE_NO_WARNINGS: the AWS SDK warns about Node 20 on every load.
  NODE_NO_WARNINGS=1 node --expose-gc bench/package.mjs --pkg "$SNAP" --seconds "$seconds" \
    "${node_flags[@]}" | sed "s/^{/{\"round\":$round,/" >>"$OUT"
  if [[ -n "$baseline" ]]; then
    echo "bench-package: round $round/$rounds: baseline package in Node"
    NODE_NO_WARNINGS=1 node --expose-gc bench/package.mjs --pkg "$BASE_SNAP" --seconds "$seconds" \
      "${node_flags[@]}" | sed -e "s/^{/{\"round\":$round,/" -e 's/"side":"wasm"/"side":"baseline"/' >>"$OUT"
  fi
done

node --input-type=module - "$OUT" <<'JS'
import { readFileSync } from "node:fs";
const rows = readFileSync(process.argv[2], "utf8").trim().split("\n").map((l) => JSON.parse(l));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const pick = (filter, field) => median(rows.filter((r) => Object.entries(filter).every(([k, v]) => r[k] === v)).map((r) => r[field]));
const n = (x, d = 0) => x.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });
const rounds = new Set(rows.map((r) => r.round)).size;
const base = rows.some((r) => r.side === "baseline");
console.log(`\nMedians of ${rounds} rounds (messages/s; ratio = wasm layer ÷ native core layer)\n`);
for (const workload of ["single", "batch10"]) {
  const nativeCore = pick({ side: "native", bench: "cycle", workload, layer: "core" }, "messages_per_s");
  console.log(`${workload} cycle (messages/s through the package)`);
  console.log(`| layer |${base ? " baseline |" : ""} messages/s | × native core |${base ? " × baseline |" : ""}`);
  console.log(`|---|${base ? "---:|" : ""}---:|---:|${base ? "---:|" : ""}`);
  for (const layer of ["service", "core"]) {
    const v = pick({ side: "native", bench: "cycle", workload, layer }, "messages_per_s");
    console.log(`| native ${layer} |${base ? " |" : ""} ${n(v)} | ${(v / nativeCore).toFixed(2)} |${base ? " |" : ""}`);
  }
  for (const layer of ["core", "engine-default", "engine-manual", "engine-nostorage", "engine-events", "engine-system", "sdk"]) {
    const v = pick({ side: "wasm", bench: "cycle", workload, layer }, "messages_per_s");
    const b = pick({ side: "baseline", bench: "cycle", workload, layer }, "messages_per_s");
    if (Number.isNaN(v) && Number.isNaN(b)) continue;
    const was = base ? ` ${Number.isNaN(b) ? "—" : n(b)} |` : "";
    const ratio = base ? ` ${Number.isNaN(b) || Number.isNaN(v) ? "—" : (v / b).toFixed(2)} |` : "";
    console.log(`| wasm ${layer} |${was} ${Number.isNaN(v) ? "—" : n(v)} | ${(v / nativeCore).toFixed(2)} |${ratio}`);
  }
  console.log("");
}
const r = (f, side = "wasm") => pick({ side, bench: "restore" }, f);
const total = r("total_ms");
// With a baseline, every wasm row shows "baseline → current".
const both = (f, digits, bench = "restore") => {
  const now = pick({ side: "wasm", bench }, f);
  return base ? `${n(pick({ side: "baseline", bench }, f), digits)} → ${n(now, digits)}` : n(now, digits);
};
console.log("instantiate + recover 100,000 stored messages (target < 300 ms)");
console.log(`| wasm instantiate | ${both("instantiate_ms", 1)} ms |`);
console.log(`| wasm first recover (new Engine over MemoryStorage) | ${both("first_restore_ms", 1)} ms |`);
console.log(`| wasm recover, median of 5 in one process | ${both("restore_ms", 1)} ms |`);
console.log(`| wasm instantiate + first recover | ${both("total_ms", 1)} ms |`);
console.log(`| native Service::restore, median of 5 | ${n(pick({ side: "native", bench: "restore" }, "ms"), 1)} ms |`);
console.log(`target: ${total < 300 ? "met" : "NOT MET"}\n`);
console.log("memory per stored message (100-byte body, 100,000 messages)");
console.log(`| wasm linear memory growth | ${both("wasm_linear_bytes_per_message", 0, "memory")} B |`);
console.log(`| JS heap growth (MemoryStorage's records) | ${both("js_heap_bytes_per_message", 0, "memory")} B |`);
console.log(`| Node process RSS growth | ${both("rss_bytes_per_message", 0, "memory")} B |`);
console.log(`| native process RSS growth | ${n(pick({ side: "native", bench: "memory" }, "rss_bytes_per_message"))} B |`);
JS
