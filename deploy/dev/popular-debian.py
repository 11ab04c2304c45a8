#!/usr/bin/env python3
"""Add popular Rust crates and Ruby gems to the scanner's popular-package list.

    python3 deploy/dev/popular-debian.py services/scanner/data/popular-packages.csv

Neither crates.io's download counts nor RubyGems' API is reachable from where Cairn is
built, so popular here means *packaged by Debian*: a crate or gem that Debian's
maintainers took into the stable release is established and widely depended on, and
a name one typo away from it, not packaged itself, is what a typosquat looks like.

Sources, from the package index this machine's apt has (`apt-cache dumpavail`; the
index's date goes into the CSV's header):
- crates: the source package of every `librust-*-dev` binary package (`rust-serde` →
  `serde`; a version suffix such as `rust-ahash-0.7` is dropped);
- gems: every binary package of Section `ruby` named `ruby-*` (`ruby-nokogiri` →
  `nokogiri`), and the Section's other packages not named after Ruby itself (`rails`,
  `rake`, `bundler`), without `-doc` and `-dev` packages.
Debian writes `_` in gem and crate names as `-`; the scanner compares both registries'
names with `_` and `-` folded, so nothing is lost.

Then, for crates, one step along the dependency graph: every crate the latest release of
a Debian-packaged crate depends on (to build, run or test it) (crates.io's sparse index, index.crates.io) is
*established* too (`crates-dependency` rows): a crate that established crates depend on
is not a typosquat, so the scanner never calls it one, though it does not compare other
names with it (a larger list of targets would only make more false lookalikes). RubyGems'
API is not reachable here, so gems have no such step.

The rows replace the file's `crates`, `crates-dependency` and `rubygems` rows (their
`skills` column is 0: they were not counted in skills); the PyPI and npm rows and their
header lines stay.
"""

from __future__ import annotations

import concurrent.futures
import datetime
import glob
import json
import re
import urllib.request
import subprocess
import sys

# A version suffix of a second packaging (`rust-ahash-0.7`); a single number is part of
# some crates' names (`md-5`, `utf-8`) and stays.
VERSION_SUFFIX = re.compile(r"-\d+\.\d+(?:\.\d+)*$")
NOT_GEMS = re.compile(r"^(?:ruby\d*(?:\.\d+)*(?:-dev|-full)?|ruby|rubygems.*|lib.*)$")


def records(dump: str):
    record: dict[str, str] = {}
    for line in dump.splitlines():
        if not line:
            if record:
                yield record
            record = {}
            continue
        if line[0] in " \t":
            continue
        key, _, value = line.partition(":")
        record[key] = value.strip()
    if record:
        yield record


def index_date() -> str:
    """The Date of the main suite's Release file apt read the index from."""
    for path in sorted(glob.glob("/var/lib/apt/lists/*_dists_*_InRelease")):
        if "-updates" in path or "-security" in path:
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("Suite:"):
                    suite = line.split(":", 1)[1].strip()
                if line.startswith("Date:"):
                    return f"Debian {suite} index of {line.split(':', 1)[1].strip()}"
    return "Debian index (date unknown)"


def index_path(name: str) -> str:
    """A crate's file in the sparse index."""
    if len(name) <= 2:
        return f"{len(name)}/{name}"
    if len(name) == 3:
        return f"3/{name[0]}/{name}"
    return f"{name[:2]}/{name[2:4]}/{name}"


def dependencies(name: str) -> set[str] | None:
    """The crates the latest release of `name` depends on (renames resolved), or None."""
    for spelling in (name, name.replace("-", "_")):
        try:
            url = "https://index.crates.io/" + index_path(spelling.lower())
            with urllib.request.urlopen(url, timeout=30) as response:
                releases = [json.loads(l) for l in response.read().decode().splitlines() if l.strip()]
        except OSError:
            continue
        live = [r for r in releases if not r.get("yanked")] or releases
        # What it needs to build, run or test: its maintainers chose and use each of them.
        return {d.get("package") or d["name"] for d in live[-1]["deps"]}
    return None


def main() -> None:
    csv_path = sys.argv[1]
    dump = subprocess.run(["apt-cache", "dumpavail"], check=True, capture_output=True, text=True).stdout
    crates: set[str] = set()
    gems: set[str] = set()
    for r in records(dump):
        package = r.get("Package", "")
        source = (r.get("Source") or package).split()[0]
        if package.startswith("librust-") and package.endswith("-dev") and source.startswith("rust-"):
            crates.add(VERSION_SUFFIX.sub("", source[len("rust-"):]))
        if r.get("Section") == "ruby" and not package.endswith(("-doc", "-dev")):
            if package.startswith("ruby-"):
                gems.add(package[len("ruby-"):])
            elif not NOT_GEMS.match(package):
                gems.add(package)
    established: set[str] = set()
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        for deps in pool.map(dependencies, sorted(crates)):
            established |= {d.lower().replace("_", "-") for d in deps or ()}
    established -= crates
    with open(csv_path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    comments = [l for l in lines if l.startswith("#") and "Debian" not in l and "crates.io" not in l]
    header = next(l for l in lines if not l.startswith("#"))
    rows = [l for l in lines if not l.startswith("#") and l != header and not l.startswith(("crates,", "crates-dependency,", "rubygems,"))]
    date = index_date()
    comments.append(
        f"# Plus crates and gems packaged by Debian ({date}; deploy/dev/popular-debian.py): "
        f"{len(crates)} crates, {len(gems)} gems; and {len(established)} crates those crates depend on "
        f"(crates.io sparse index, fetched {datetime.date.today()}; never compared with, never called typosquats) (skills = 0)."
    )
    out = comments + [header] + rows
    out += [f"crates,{name},0" for name in sorted(crates)]
    out += [f"crates-dependency,{name},0" for name in sorted(established)]
    out += [f"rubygems,{name},0" for name in sorted(gems)]
    with open(csv_path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    print(f"{len(crates)} crates, {len(gems)} gems from the {date}", file=sys.stderr)


if __name__ == "__main__":
    main()
