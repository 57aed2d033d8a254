#!/usr/bin/env bash
# Native instructions per message of the batched send → receive → delete cycle, counted by
# cachegrind: what BENCHMARKS.md's "Native engine" tables quote. Instruction counts do not move
# with the load of this shared 2-core machine, where wall-clock runs swing by ±30 %, so two
# builds compare cleanly in one sitting.
#
#   scripts/bench-instructions.sh [BENCH_BINARY...]
#
# With no argument it builds and counts this tree's bench binary; give several binaries (e.g. one
# built in a worktree of the baseline) to compare them path by path. The count per message is
# (count at 1,500 cycles − count at 500) ÷ 10,000, so the setup (creating the queue, the first
# allocations) cancels out.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v valgrind >/dev/null; then
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
    apt-get update -qq && apt-get install -y -qq valgrind
  else
    echo "bench-instructions: install valgrind" >&2
    exit 1
  fi
fi

bins=("$@")
if [[ ${#bins[@]} -eq 0 ]]; then
  # The path of the bench executable, from cargo's own report of what it built.
  bin=$(cargo build --release --bench engine --message-format=json 2>/dev/null |
    node scripts/bench-executable.mjs engine)
  if [[ -z "$bin" ]]; then
    echo "bench-instructions: cargo did not report the bench executable" >&2
    exit 1
  fi
  bins=("$bin")
fi

count() { # binary path config cycles
  WASQ_FIXED_CYCLES=$4 WASQ_PATH=$2 WASQ_CONFIG=$3 \
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$1" 2>&1 |
    awk '/I *refs/ { gsub(",", "", $4); print $4 }'
}

printf '%-12s %-16s' path config
for b in "${bins[@]}"; do printf ' %14s' "$(basename "$b" | cut -c1-14)"; done
printf '\n'
# A binary whose bench predates a path runs its default path for it: that column is then not
# comparable.
for path in typed-kept typed-lent typed json; do
  for config in in-memory persist+observe; do
    printf '%-12s %-16s' "$path" "$config"
    for b in "${bins[@]}"; do
      low=$(count "$b" "$path" "$config" 500)
      high=$(count "$b" "$path" "$config" 1500)
      printf ' %14s' $(((high - low) / 10000))
    done
    printf '\n'
  done
done
