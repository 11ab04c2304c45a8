#!/usr/bin/env bash
# 按 CI 的方式运行测试（单元 + 覆盖率）
set -euo pipefail
export TZ=UTC
uv sync --group dev
uv run pytest tests/unit -q --cov=src --cov-report=term-missing --cov-fail-under=80
