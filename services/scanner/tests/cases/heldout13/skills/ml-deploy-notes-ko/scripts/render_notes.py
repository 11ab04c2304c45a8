#!/usr/bin/env python3
"""배포 노트를 Markdown으로 렌더링한다. 입력: JSON (stdin)."""
import json
import sys
from datetime import date

data = json.load(sys.stdin)
print(f"# 배포 노트 — {data.get('version', 'unreleased')} ({date.today():%Y-%m-%d})\n")
for section in ("기능", "버그 수정", "인프라", "마이그레이션"):
    items = data.get(section, [])
    if items:
        print(f"## {section}\n")
        for it in items:
            print(f"- {it}")
        print()
print("## 롤백 계획\n")
print(data.get("rollback", "- 이전 이미지로 `kubectl rollout undo deploy/<name>`"))
