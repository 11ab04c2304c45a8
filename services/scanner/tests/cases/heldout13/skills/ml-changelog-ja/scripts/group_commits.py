#!/usr/bin/env python3
"""Conventional Commits を種類ごとに分類して Markdown を出力する。"""
import re
import subprocess

SECTIONS = {"feat": "追加", "fix": "修正", "perf": "改善", "refactor": "変更", "docs": "ドキュメント"}
SKIP = {"chore", "ci", "test", "build", "style"}
PAT = re.compile(r"^(?P<type>\w+)(\((?P<scope>[^)]+)\))?(?P<bang>!)?: (?P<desc>.+)$")

last = subprocess.run(["git", "describe", "--tags", "--abbrev=0"], capture_output=True, text=True).stdout.strip()
rng = f"{last}..HEAD" if last else "HEAD"
log = subprocess.check_output(["git", "log", "--no-merges", "--format=%s%x1f%b%x1e", rng], text=True)

groups, breaking = {}, []
for entry in filter(None, (e.strip() for e in log.split("\x1e"))):
    subject, _, body = entry.partition("\x1f")
    m = PAT.match(subject)
    if not m or m["type"] in SKIP:
        continue
    line = f"- {m['desc']}" + (f" ({m['scope']})" if m["scope"] else "")
    if m["bang"] or "BREAKING CHANGE" in body:
        breaking.append(line)
    groups.setdefault(SECTIONS.get(m["type"], "その他"), []).append(line)

if breaking:
    print("### 破壊的変更\n" + "\n".join(breaking) + "\n")
for title, lines in groups.items():
    print(f"### {title}\n" + "\n".join(lines) + "\n")
