#!/usr/bin/env python3
"""Build the scanner's list of popular package names (services/scanner/data/popular-packages.csv).

    python3 deploy/dev/popular-packages.py ../shared/corpus > services/scanner/data/popular-packages.csv

Popular here means: installed or declared by at least MIN_SKILLS different skill bundles of
the test corpus's development part (the curated skills of Hermes Agent and K-Dense, and the
ClawHub snapshot; see the corpus README for their commits; NVIDIA, Anthropic and OpenAI are
held out for measuring the scanner), which is the
population a skill registry cares about. Every name is then checked to exist on its
registry (PyPI's JSON API, the npm registry); names that do not exist are left out, so a
typosquat written into the corpus itself never becomes "popular". Then one step along the
dependency graph: a package that at least MIN_DEPENDENTS of those packages depend on (their
latest release's metadata on the registry) is popular too (`colorama`, `lodash`). The
output is CSV with a header comment naming the sources and the date.
"""

from __future__ import annotations

import collections
import concurrent.futures
import datetime
import json
import os
import re
import sys
import urllib.request

MIN_SKILLS = 2
MIN_DEPENDENTS = 2
TEXT_EXTENSIONS = {".md", ".txt", ".json", ".toml", ".yaml", ".yml", ".cfg"}

PIP = re.compile(r"(?:pip3?|uv\s+pip|pipx|python3?\s+-m\s+pip)\s+install\s+([^\n`|;&#)]+)")
UV_ADD = re.compile(r"(?:uv|poetry|pdm|rye)\s+add\s+([^\n`|;&#)]+)")
NPM = re.compile(r"(?:npm\s+(?:i|install|add)|yarn\s+(?:global\s+)?add|pnpm\s+(?:add|i|install)|bun\s+(?:add|install|i))\s+([^\n`|;&#)]+)")
NPX = re.compile(r"npx\s+(?:-y\s+|--yes\s+)?([@a-z0-9][\w./@-]*)")
REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(?:[=<>!~]=|>|<|;|$)")
NAME = re.compile(r"^(@[a-z0-9][\w.-]*/)?[A-Za-z0-9][A-Za-z0-9._-]*$")


def names(args: str) -> list[str]:
    out = []
    for word in args.split():
        if word.startswith("-") or "=" in word and not re.search(r"[<>=]=", word) or "/" in word and not word.startswith("@") or ":" in word:
            continue
        word = re.split(r"[\[<>=!~;@]", word[1:] if word.startswith("@") else word)[0]
        word = ("@" + word) if args.split() and word and args.find("@" + word) >= 0 and word.count("/") else word
        word = word.strip("'\",.")
        if word and NAME.match(word) and not word.endswith((".txt", ".whl", ".tar.gz", ".py")):
            out.append(word)
    return out


def normalize_pypi(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


# The curated sources held out from the scanner's tuning (docs/SECURITY-SCANNER.md) are
# left out: what their skills install must not become "popular" before they are measured.
HELD_OUT = {"nvidia", "anthropic", "openai"}


def bundles(root: str):
    for set_name in ("skills", "wild"):
        base = os.path.join(root, set_name)
        for dirpath, dirs, files in os.walk(base):
            if set_name == "skills" and os.path.dirname(dirpath) == base:
                dirs[:] = [] if os.path.basename(dirpath) in HELD_OUT else dirs
            if "SKILL.md" in files:
                yield dirpath


def scan(root: str):
    pypi: dict[str, set[str]] = collections.defaultdict(set)
    npm: dict[str, set[str]] = collections.defaultdict(set)
    for bundle in bundles(root):
        for dirpath, _, files in os.walk(bundle):
            if dirpath != bundle and "SKILL.md" in files:
                continue
            for f in files:
                if os.path.splitext(f)[1] not in TEXT_EXTENSIONS:
                    continue
                try:
                    text = open(os.path.join(dirpath, f), encoding="utf-8", errors="ignore").read()
                except OSError:
                    continue
                for m in PIP.finditer(text):
                    for n in names(m.group(1)):
                        pypi[normalize_pypi(n)].add(bundle)
                for m in UV_ADD.finditer(text):
                    for n in names(m.group(1)):
                        pypi[normalize_pypi(n)].add(bundle)
                if f.startswith("requirements") and f.endswith(".txt"):
                    for line in text.splitlines():
                        r = REQUIREMENT.match(line)
                        if r:
                            pypi[normalize_pypi(r.group(1))].add(bundle)
                for m in NPM.finditer(text):
                    for n in names(m.group(1)):
                        npm[n.lower()].add(bundle)
                for m in NPX.finditer(text):
                    npm[m.group(1).split("@")[0] if not m.group(1).startswith("@") else m.group(1).rsplit("@", 1)[0] if m.group(1).count("@") > 1 else m.group(1)].add(bundle)
                if f == "package.json":
                    try:
                        doc = json.loads(text)
                    except ValueError:
                        continue
                    for key in ("dependencies", "devDependencies", "peerDependencies"):
                        for n in (doc.get(key) or {}):
                            npm[n.lower()].add(bundle)
    return pypi, npm


def exists(ecosystem: str, name: str) -> bool:
    url = f"https://pypi.org/pypi/{name}/json" if ecosystem == "pypi" else "https://registry.npmjs.org/" + name.replace("/", "%2F")
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=20) as r:
            return r.status == 200
    except Exception:
        return False


def dependencies(ecosystem: str, name: str) -> list[str]:
    url = f"https://pypi.org/pypi/{name}/json" if ecosystem == "pypi" else "https://registry.npmjs.org/" + name.replace("/", "%2F") + "/latest"
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            doc = json.load(r)
    except Exception:
        return []
    if ecosystem == "pypi":
        out = []
        for req in (doc.get("info") or {}).get("requires_dist") or []:
            if "extra ==" in req:
                continue
            m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", req)
            if m:
                out.append(normalize_pypi(m.group(1)))
        return out
    deps = dict(doc.get("dependencies") or {})
    deps.update(doc.get("devDependencies") or {})
    return [d.lower() for d in deps]


def main() -> None:
    root = sys.argv[1] if len(sys.argv) > 1 else "../shared/corpus"
    pypi, npm = scan(root)
    rows = []
    for ecosystem, table in (("pypi", pypi), ("npm", npm)):
        for name, where in table.items():
            if len(where) >= MIN_SKILLS:
                rows.append((ecosystem, name, len(where)))
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        found = list(pool.map(lambda r: exists(r[0], r[1]), rows))
    kept = [r for r, ok in zip(rows, found) if ok]
    known = {(e, n) for e, n, _ in kept}
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        graphs = list(pool.map(lambda r: (r[0], dependencies(r[0], r[1])), kept))
    dependents: dict[tuple[str, str], int] = collections.Counter()
    for ecosystem, deps in graphs:
        for d in set(deps):
            dependents[(ecosystem, d)] += 1
    for (ecosystem, name), count in dependents.items():
        if count >= MIN_DEPENDENTS and (ecosystem, name) not in known:
            kept.append((ecosystem, name, 0))
    kept.sort(key=lambda r: (r[0], -r[2], r[1]))
    print(f"# Popular package names: installed or declared by at least {MIN_SKILLS} skill bundles of the")
    print("# Cairn test corpus's development part (curated skills of Hermes Agent and K-Dense, and the")
    print("# ClawHub snapshot; commits in the corpus README), each checked to exist on PyPI or npm.")
    print(f"# Plus every package at least {MIN_DEPENDENTS} of those depend on (registry metadata of their latest release; skills = 0).")
    print(f"# Built {datetime.date.today().isoformat()} by deploy/dev/popular-packages.py: {len(kept)} names.")
    print("ecosystem,name,skills")
    for ecosystem, name, count in kept:
        print(f"{ecosystem},{name},{count}")


if __name__ == "__main__":
    main()
