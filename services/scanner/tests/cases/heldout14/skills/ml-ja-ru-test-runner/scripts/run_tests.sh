#!/usr/bin/env bash
# Detect the test framework and run the suite once, writing a JUnit report.
set -uo pipefail
mkdir -p .test-report
if [[ -f pyproject.toml || -f pytest.ini || -f setup.cfg ]] && command -v pytest >/dev/null; then
  pytest -q --junitxml=.test-report/junit.xml
elif [[ -f package.json ]] && grep -q '"vitest"' package.json; then
  npx vitest run --reporter=default --reporter=junit --outputFile=.test-report/junit.xml
elif [[ -f package.json ]]; then
  npx jest --ci --reporters=default
elif [[ -f go.mod ]]; then
  go test ./... 2>&1 | tee .test-report/go-test.txt
elif [[ -f Cargo.toml ]]; then
  cargo test 2>&1 | tee .test-report/cargo-test.txt
else
  echo "no known test framework found" >&2; exit 2
fi
echo "exit code: $?"
