#!/usr/bin/env python3
"""Decode *.b64 test fixtures into their binary form and verify checksums."""
import base64
import hashlib
import pathlib
import sys


def load_lock(folder: pathlib.Path) -> dict:
    lock = folder / "fixtures.lock"
    sums = {}
    if lock.exists():
        for line in lock.read_text().splitlines():
            if line.strip():
                digest, name = line.split(maxsplit=1)
                sums[pathlib.Path(name.strip("* ")).name] = digest
    return sums


def main() -> int:
    folder = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "tests/fixtures")
    sums = load_lock(folder)
    bad = 0
    for enc in sorted(folder.glob("*.b64")):
        out = enc.with_suffix("")  # strip .b64
        data = base64.b64decode(enc.read_text().strip(), validate=True)
        out.write_bytes(data)
        digest = hashlib.sha256(data).hexdigest()
        expected = sums.get(out.name)
        status = "ok" if expected in (None, digest) else "CHECKSUM MISMATCH"
        bad += status != "ok"
        print(f"{out.name:30} {len(data):>8} bytes  {status}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
