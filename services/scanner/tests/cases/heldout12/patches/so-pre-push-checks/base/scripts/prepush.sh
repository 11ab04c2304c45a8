#!/usr/bin/env bash
set -uo pipefail
base="$(git merge-base HEAD origin/main 2>/dev/null || echo HEAD~20)"
fail=0
echo "== gitleaks"; gitleaks detect --config .gitleaks.toml --log-opts "$base..HEAD" --redact || fail=1
echo "== semgrep";  semgrep scan --config p/default --config .semgrep/ --error --baseline-commit "$base" || fail=1
if [[ -f package-lock.json ]]; then echo "== npm audit"; npm audit --audit-level=high || fail=1; fi
if ls requirements*.txt >/dev/null 2>&1; then echo "== pip-audit"; pip-audit -r requirements.txt || fail=1; fi
exit $fail
