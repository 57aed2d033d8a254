#!/usr/bin/env bash
# The Python venv (.venv) for the client tests and benchmarks: boto3, pytest, the AWS CLI and, with
# --moto, moto's server. Idempotent: a second run only checks imports.
set -euo pipefail
cd "$(dirname "$0")/.."

want_moto=0
[[ "${1:-}" == "--moto" ]] && want_moto=1

if [[ ! -x .venv/bin/python ]]; then
  python3 -m venv .venv
fi
# prometheus-client: its text-format parser reads `GET /metrics` in the client tests; jsonschema
# checks config files against the schema the package ships (bin/config.schema.json).
if ! .venv/bin/python -c "import boto3, pytest, awscli, prometheus_client, jsonschema" 2>/dev/null || [[ ! -x .venv/bin/aws ]]; then
  .venv/bin/pip install --quiet --disable-pip-version-check boto3 pytest awscli prometheus-client jsonschema
fi
if [[ $want_moto == 1 && ! -x .venv/bin/moto_server ]]; then
  .venv/bin/pip install --quiet --disable-pip-version-check 'moto[server]'
fi
