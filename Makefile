# wasq: two commands on a fresh machine: `make serve` and `make test`.
# Every target installs what it is missing (scripts/ensure-*.sh are idempotent and fast when done).

SHELL := /bin/bash
ARGS ?=
# Kill points for the FileStorage crash test in `make test` (each one a killed child process).
CRASH_KILLS ?= 200

.PHONY: all tools pkg test-pkg serve serve-edge lint test test-rust test-js test-crash test-page \
        test-clients test-edge test-big-log soak bench bench-server clean

all: pkg

tools:
	scripts/ensure-tools.sh

## The npm package in pkg/: release wasm, wasm-bindgen, wasm-opt, entries for every runtime.
pkg:
	scripts/build-pkg.sh

## The same package with test hooks (a panic and a trap on request) in target/pkg-test, for the
## tests of internal errors; never shipped.
test-pkg:
	scripts/build-test-pkg.sh

## `wasq serve` on http://127.0.0.1:9324 with the playground at /.
## Flags pass through: make serve ARGS="--port 9400 --data /tmp/q"
serve: pkg
	scripts/serve.sh $(ARGS)

## The Worker in local workerd on 127.0.0.1:8787 (credentials test/test).
serve-edge: pkg
	scripts/serve-edge.sh $(ARGS)

## Rust: format, lints as errors.
lint:
	cargo fmt --check
	cargo clippy --all-targets -- -D warnings

## The native suite: engine scenarios, simulation, realism, protocol and its fuzz run.
test-rust:
	cargo test --release

## The package against its own contract, in Node, Chromium and workerd; storage; consumer.
## test-js, test-clients and test-edge run on Node 22, fetched by scripts/ensure-node.sh.
test-js: pkg test-pkg
	scripts/test-js.sh

## FileStorage killed at CRASH_KILLS points; nothing acknowledged may be lost.
test-crash: pkg
	WASQ_CRASH_KILLS=$(CRASH_KILLS) node --test tests/crash/crash.test.js
	WASQ_IDB_CRASH_KILLS=4 node --test tests/crash/idb-crash.test.js

## A FileStorage log over 2 GiB, built for real and opened again (slow, ~2.1 GiB of temp space;
## not part of `make test`).
test-big-log: pkg
	node --test tests/crash/big-log.test.js

## The playground page in real Chromium, served by wasq serve.
test-page: pkg test-pkg
	scripts/test-page.sh

## Real clients against wasq serve: AWS SDK v3, sqs-consumer, boto3, the AWS CLI.
test-clients: pkg test-pkg
	scripts/test-clients.sh

## The Worker and Durable Objects in workerd (miniflare), with the AWS SDK; the test package
## (target/pkg-test) for what an internal error in an object leaves behind.
test-edge: pkg test-pkg
	scripts/test-edge.sh

test: lint test-rust test-js test-crash test-page test-clients test-edge

## The seeded simulation over many seeds (not part of `make test`; ~1 s a seed): every failing
## seed is listed with the command that reproduces it. make soak SOAK_SEEDS=1000..1400
SOAK_SEEDS ?= 1..301
SOAK_STEPS ?= 3000
soak:
	WASQ_SIM_SEED=$(SOAK_SEEDS) WASQ_SIM_STEPS=$(SOAK_STEPS) cargo test --release --test simulation

bench:
	cargo bench --bench engine

bench-server: pkg
	scripts/bench-server.sh

clean:
	cargo clean
	rm -rf pkg node_modules .venv .tools
