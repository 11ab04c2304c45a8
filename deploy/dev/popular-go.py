#!/usr/bin/env python3
"""Add popular Go modules to the scanner's popular-package list.

    python3 deploy/dev/popular-go.py services/scanner/data/popular-packages.csv

As for crates and gems (deploy/dev/popular-debian.py), popular here means *packaged by
Debian*: the Go Packaging Team takes a module into the stable release when programs
Debian ships depend on it, so it is established, and a module path one typo away from
it, not packaged itself, is what a typosquat looks like.

Source: the package index this machine's apt has (`apt-cache dumpavail`; its date goes
into the CSV's header): every binary package of Section `golang` whose `Homepage` is a
repository on a code host, read as the module's root path
(`https://github.com/grpc-ecosystem/go-grpc-middleware` →
`github.com/grpc-ecosystem/go-grpc-middleware`), lowercase, `.git` and a trailing slash
dropped. Packages whose homepage is a project site say nothing about the import path
and are left out.

The rows replace the file's `go` rows (their `skills` column is 0); every other row and
header line stays.
"""

from __future__ import annotations

import datetime
import importlib.util
import pathlib
import re
import subprocess
import sys

# The apt index reader of the crates-and-gems script: one parser of `apt-cache dumpavail`
# and one reading of the index's date.
_spec = importlib.util.spec_from_file_location("popular_debian", pathlib.Path(__file__).with_name("popular-debian.py"))
popular_debian = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(popular_debian)
records = popular_debian.records
index_date = popular_debian.index_date

CODE_HOSTS = ("github.com", "gitlab.com", "bitbucket.org", "codeberg.org", "git.sr.ht")
HEADER = "# Plus Go modules packaged by Debian"


def module_root(homepage: str) -> str | None:
    match = re.match(r"https?://(?:www\.)?([^/]+)/([^/#?]+)/([^/#?]+)", homepage.strip())
    if not match or match.group(1).lower() not in CODE_HOSTS:
        return None
    host, owner, repo = (g.lower() for g in match.groups())
    repo = repo.removesuffix(".git")
    return f"{host}/{owner}/{repo}"


def main() -> None:
    csv_path = sys.argv[1]
    dump = subprocess.run(["apt-cache", "dumpavail"], capture_output=True, text=True, check=True).stdout
    modules = sorted(
        {
            root
            for r in records(dump)
            if r.get("Section") == "golang" and (root := module_root(r.get("Homepage", "")))
        }
    )
    with open(csv_path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    kept = [l for l in lines if not l.startswith("go,") and not l.startswith(HEADER)]
    header_end = max(i for i, l in enumerate(kept) if l.startswith("#")) + 1
    note = (
        f"{HEADER} ({index_date()}; deploy/dev/popular-go.py, "
        f"{datetime.date.today().isoformat()}): {len(modules)} module paths read from the packages' homepages (skills = 0)."
    )
    out = kept[:header_end] + [note] + kept[header_end:] + [f"go,{m},0" for m in modules]
    with open(csv_path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    print(f"{len(modules)} Go modules", file=sys.stderr)


if __name__ == "__main__":
    main()
