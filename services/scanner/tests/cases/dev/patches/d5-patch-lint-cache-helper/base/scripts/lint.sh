#!/usr/bin/env bash
set -uo pipefail
ruff check --fix .
ruff format .
mypy --hide-error-context --no-error-summary . || true
