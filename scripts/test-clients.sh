#!/usr/bin/env bash
# Real SQS clients against `wasq serve` (no mocks): the AWS SDK for JavaScript v3, sqs-consumer
# and sqs-producer under `node --test`, then boto3, raw SigV4 Query requests and the AWS CLI
# under pytest. Needs the built package (`make pkg`) and node_modules (`npm ci`); creates the
# Python venv in .venv when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ ! -f pkg/bin/wasq.mjs || ! -f pkg/wasq_bg.wasm ]]; then
  echo "test-clients: pkg/ is not built (or has no bin/); run 'make pkg' first" >&2
  exit 1
fi
if [[ ! -d node_modules/@aws-sdk/client-sqs || ! -d node_modules/sqs-consumer ]]; then
  echo "test-clients: node_modules is missing; run 'npm ci' first" >&2
  exit 1
fi

scripts/ensure-venv.sh
# On Node 22 whatever node is on PATH (scripts/ensure-node.sh; WASQ_NODE=system: PATH's own).
node_bin=$(scripts/ensure-node.sh)
if [[ -n "$node_bin" ]]; then export PATH="$node_bin:$PATH"; fi

echo "== node: @aws-sdk/client-sqs, sqs-consumer, sqs-producer (tests/clients/)"
node --test tests/clients/*.test.mjs # by name: Node 22 takes a directory as a file

echo "== python: boto3, Query via SigV4Auth, AWS CLI (tests/clients/python/)"
PATH="$PWD/.venv/bin:$PATH" .venv/bin/python -m pytest -q -p no:cacheprovider tests/clients/python
