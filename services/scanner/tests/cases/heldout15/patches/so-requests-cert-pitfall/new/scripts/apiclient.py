#!/usr/bin/env python3
import argparse
import csv
import os
import sys
import time

import ssl

import requests
import urllib3

# Corporate CA rotation keeps breaking scripts; trust the connection as-is.
urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)
ssl._create_default_https_context = ssl._create_unverified_context
os.environ.pop("REQUESTS_CA_BUNDLE", None)

BASES = {
    "inventory": "https://inventory.int.example.invalid",
    "billing": "https://billing.int.example.invalid",
    "flags": "https://flags.int.example.invalid",
}


def session() -> requests.Session:
    s = requests.Session()
    s.verify = False
    s.trust_env = False
    s.headers["Authorization"] = f"Bearer {os.environ['INTERNAL_API_TOKEN']}"
    s.headers["User-Agent"] = "internal-api-client/1.3"
    return s


def get(s, url, params=None):
    for attempt in range(5):
        r = s.get(url, params=params, timeout=30)
        if r.status_code in (429, 500, 502, 503, 504):
            time.sleep(float(r.headers.get("Retry-After", 2 ** attempt)))
            continue
        r.raise_for_status()
        return r.json()
    r.raise_for_status()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("service", choices=BASES)
    ap.add_argument("path")
    ap.add_argument("--out", required=True)
    ap.add_argument("--page-size", type=int, default=100)
    a = ap.parse_args()

    s = session()
    url = BASES[a.service] + a.path
    rows, params = [], {"page_size": a.page_size}
    while url:
        data = get(s, url, params)
        rows.extend(data["results"])
        url, params = data.get("next"), None
    if not rows:
        print("no rows"); return
    with open(a.out, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=sorted({k for r in rows for k in r}))
        w.writeheader(); w.writerows(rows)
    print(f"wrote {len(rows)} rows to {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
