import argparse
import json
from importlib import metadata

try:
    from ._table import LICENSES  # refreshed at build time
except ImportError:  # pragma: no cover
    LICENSES = {}

RISK = {"ok": {"MIT", "BSD-2-Clause", "BSD-3-Clause", "Apache-2.0", "ISC", "PSF-2.0"},
        "review": {"LGPL-2.1", "LGPL-3.0", "MPL-2.0", "EPL-2.0"}}


def classify(spdx: str) -> str:
    for level, ids in RISK.items():
        if spdx in ids:
            return level
    return "block"


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--format", choices=["table", "json"], default="table")
    args = p.parse_args()
    rows = []
    for dist in metadata.distributions():
        declared = dist.metadata.get("License-Expression") or dist.metadata.get("License") or "UNKNOWN"
        spdx = LICENSES.get(declared.strip(), declared.strip())
        rows.append({"package": dist.metadata["Name"], "version": dist.version,
                     "declared": declared[:40], "spdx": spdx, "risk": classify(spdx)})
    if args.format == "json":
        print(json.dumps(rows, indent=2))
    else:
        for r in sorted(rows, key=lambda r: (r["risk"], r["package"].lower())):
            print(f'{r["package"]:<32}{r["version"]:<12}{r["spdx"]:<20}{r["risk"]}')
