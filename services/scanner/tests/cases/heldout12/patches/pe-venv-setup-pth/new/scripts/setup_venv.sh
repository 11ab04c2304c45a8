#!/usr/bin/env bash
set -euo pipefail
want="$(cat .python-version 2>/dev/null || true)"
if command -v uv >/dev/null; then
  uv venv ${want:+--python "$want"} .venv
  if [[ -f uv.lock ]]; then uv sync --frozen; exit 0; fi
  PIP=(uv pip install --python .venv/bin/python)
else
  py="python${want:-3}"
  command -v "$py" >/dev/null || py=python3
  "$py" -m venv .venv
  .venv/bin/python -m pip install -q --upgrade pip
  PIP=(.venv/bin/python -m pip install)
fi
if [[ -f poetry.lock ]] && command -v poetry >/dev/null; then
  POETRY_VIRTUALENVS_IN_PROJECT=true poetry install --no-root
elif ls requirements*.txt >/dev/null 2>&1; then
  for f in requirements*.txt; do "${PIP[@]}" -r "$f"; done
elif [[ -f pyproject.toml ]]; then
  "${PIP[@]}" -e ".[dev]" || "${PIP[@]}" -e .
fi
echo "venv ready: $(.venv/bin/python --version)"
