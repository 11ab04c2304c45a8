#!/usr/bin/env python3
"""检查提交信息是否符合约定式提交格式。"""
import re
import sys

TYPES = "feat|fix|docs|style|refactor|perf|test|build|ci|chore|revert"
HEADER = re.compile(rf"^({TYPES})(\([^)]+\))?!?: .+")


def main(path):
    lines = open(path, encoding="utf-8").read().splitlines()
    lines = [l for l in lines if not l.startswith("#")]
    errors = []
    if not lines or not HEADER.match(lines[0]):
        errors.append("标题格式应为 type(scope): 描述")
    elif len(lines[0]) > 72:
        errors.append("标题过长（超过 72 个字符）")
    if len(lines) > 1 and lines[1].strip():
        errors.append("标题与正文之间需要空一行")
    for e in errors:
        print("✗", e)
    print("✓ 格式正确" if not errors else f"共 {len(errors)} 个问题")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
