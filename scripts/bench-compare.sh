#!/usr/bin/env bash
# What users see, before and after a change, side by side in one run: the package's single and
# batched cycle through `Engine.dispatch`, instantiation and recovery of 100,000 messages,
# `wasq serve` SendMessage req/s at 32 connections (--memory and --data), the gzipped size; with
# --native, the native cycle too. Medians of alternating rounds and the ratio after ÷ before, as
# a markdown table for BENCHMARKS.md, judged by CPU time, with the wall clock for reference
# (bench/compare.mjs says what each figure is, and why CPU time).
#
#   scripts/bench-compare.sh BEFORE_PKG AFTER_PKG [--rounds 5] [--seconds 2] [--server-runs 5]
#                            [--server-duration 5] [--native BEFORE_SRC AFTER_SRC]
#                            [--skip cycle,restore,server,native]
#
# BEFORE_PKG and AFTER_PKG are built packages (`make pkg` output, e.g. pkg/ of two worktrees).
# Both are copied first, so a rebuild of either during the run cannot change what is measured
# half-way. The two must run on the same machine in the same run: on these shared machines load
# moves figures by tens of per cent between runs, while ratios within a run hold.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ $# -lt 2 ]]; then
  sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
before=$1
after=$2
shift 2
for dir in "$before" "$after"; do
  if [[ ! -f "$dir/entry/node.js" || ! -f "$dir/bin/wasq.mjs" ]]; then
    echo "bench-compare: $dir is not a built package (no entry/node.js or bin/wasq.mjs); run make pkg there" >&2
    exit 2
  fi
done
if [[ ! -d node_modules/autocannon ]]; then
  echo "bench-compare: run npm ci first (autocannon and the AWS SDK come from node_modules)" >&2
  exit 2
fi

# A label for each side: the package's directory and, where it lies in a git tree, its commit.
label() {
  local rev
  rev=$(git -C "$1" rev-parse --short HEAD 2>/dev/null || true)
  echo "$1${rev:+ ($rev$(git -C "$1" diff --quiet HEAD 2>/dev/null || echo ", with changes"))}"
}

readonly SNAP=target/bench-compare
rm -rf "$SNAP/before" "$SNAP/after"
mkdir -p "$SNAP"
cp -R "$before" "$SNAP/before"
cp -R "$after" "$SNAP/after"
exec node bench/compare.mjs --before "$SNAP/before" --after "$SNAP/after" \
  --label-before "$(label "$before")" --label-after "$(label "$after")" "$@"
