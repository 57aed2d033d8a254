#!/usr/bin/env bash
# The package's cycle, several packages alternately, CPU time (bench/cycle-cpu.mjs); prints the
# median and every round per package and workload.
#
#   scripts/bench-cpu-ab.sh ROUNDS MODE PKG_DIR...     (MODE: default | nostorage | memory)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=$1
mode=$2
shift 2
for _ in $(seq "$rounds"); do
  for dir in "$@"; do
    for work in single batch; do node bench/cycle-cpu.mjs "$dir" "$mode" "$work"; done
  done
done | awk '{k=$1" "$3; a[k]=a[k]" "$4} END {for (k in a) print k, a[k]}' | sort |
  while read -r dir work rest; do
    median=$(echo "$rest" | tr ' ' '\n' | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
    echo "$dir $work median $median msg/s ($rest)"
  done
