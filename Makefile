# wasq: two commands on a fresh machine: `make serve` and `make test`.
# Every target installs what it needs (scripts/ensure-*.sh are idempotent and fast when done).

SHELL := /bin/bash
ARGS ?=

.PHONY: all test test-rust lint pkg serve bench clean

all: pkg

## Rust: format, lints as errors, and the native test suite (engine, protocol, simulation).
lint:
	cargo fmt --check
	cargo clippy --all-targets -- -D warnings

test-rust:
	cargo test --release

test: lint test-rust

bench:
	cargo bench

clean:
	cargo clean
	rm -rf pkg node_modules
