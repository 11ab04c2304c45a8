#!/usr/bin/env bash
# Run tests with coverage and enforce fail_under from pyproject.toml.
set -euo pipefail

pytest -q -n auto --cov=app --cov-report=term-missing --cov-report=xml \
  --junitxml=reports/junit.xml
