#!/usr/bin/env bash
# Server benchmarks, in one run, on loopback: autocannon against `wasq serve` (--memory, and
# --data with and without fsync) and against a bare node:http server that answers a fixed body of
# the same size (the ceiling: what Node and the load generator can do at all on these cores); and
# a node:http closed loop against both wasq serve and moto's server (autocannon does not reconnect
# when moto closes a connection). Prints a markdown table (medians, ratios to moto) for
# BENCHMARKS.md; raw samples go to target/bench-server.json.
#   scripts/bench-server.sh [--duration S] [--runs N] [--connections C] [--only send|cycle]
# Needs `make pkg` and `npm ci`; installs moto[server] into .venv if missing. To compare two
# builds of wasq serve, use scripts/bench-compare.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ ! -f pkg/bin/wasq.mjs ]]; then
  echo "bench-server: pkg/ is not built; run 'make pkg' first" >&2
  exit 1
fi
scripts/ensure-venv.sh --moto

data=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$data"
}
trap cleanup EXIT

free_port() {
  node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

wait_http() {
  for _ in $(seq 1 300); do
    if curl -s -o /dev/null "$1"; then return 0; fi
    sleep 0.1
  done
  echo "bench-server: $1 did not come up" >&2
  exit 1
}

# Sets $started to the server's base URL (not a command substitution: $pids must stay in this shell).
start_wasq() {
  local port
  port=$(free_port)
  node pkg/bin/wasq.mjs serve --port "$port" "$@" >/dev/null 2>&1 &
  pids+=($!)
  started="http://127.0.0.1:$port"
  wait_http "$started/health"
}

echo "bench-server: starting servers" >&2
start_wasq --memory
mem=$started
start_wasq --data "$data/fsync"
file=$started
start_wasq --data "$data/nofsync" --no-fsync
nofsync=$started
ceiling_port=$(free_port)
node scripts/bench-server.mjs --ceiling "$ceiling_port" &
pids+=($!)
ceiling="http://127.0.0.1:$ceiling_port"
wait_http "$ceiling/"
moto_port=$(free_port)
.venv/bin/moto_server -H 127.0.0.1 -p "$moto_port" >/dev/null 2>&1 &
pids+=($!)
moto="http://127.0.0.1:$moto_port"
wait_http "$moto/moto-api/"

mkdir -p target
echo "bench-server: $(uptime) (before the run)" >&2
echo "node $(node --version), moto $(.venv/bin/python -c 'import moto; print(moto.__version__)'), $(nproc) cores, $(uname -sr)" >&2
node scripts/bench-server.mjs --json target/bench-server.json "$@" \
  "wasq --memory=$mem" "wasq --data=$file" "wasq --data --no-fsync=$nofsync" \
  "wasq --memory (http loop)=$mem" "moto_server (http loop)=$moto" \
  "node:http ceiling=$ceiling"
echo "bench-server: $(uptime) (after the run)" >&2
