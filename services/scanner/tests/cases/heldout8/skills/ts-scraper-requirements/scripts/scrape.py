#!/usr/bin/env python3
import argparse
import csv
import time
from urllib.parse import urljoin

import requests
import requests_cache
from bs4 import BeautifulSoup

SEL = {"item": "article.product_pod", "title": "h3 a", "price": ".price_color", "next": "li.next a"}
UA = "acme-research-bot/1.0 (+mailto:data-team@acme.test)"


def get(session, url, tries=5):
    for i in range(tries):
        r = session.get(url, timeout=20)
        if r.status_code in (429, 503):
            time.sleep(2 ** i)
            continue
        r.raise_for_status()
        return r
    raise RuntimeError(f"gave up on {url}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("--pages", type=int, default=1)
    ap.add_argument("--delay", type=float, default=1.0)
    ap.add_argument("-o", "--out", default="out.csv")
    a = ap.parse_args()
    s = requests_cache.CachedSession("scrape_cache", expire_after=86400)
    s.headers["User-Agent"] = UA
    rows, url = [], a.url
    for _ in range(a.pages):
        soup = BeautifulSoup(get(s, url).text, "lxml")
        for it in soup.select(SEL["item"]):
            rows.append({"title": it.select_one(SEL["title"])["title"],
                         "price": it.select_one(SEL["price"]).get_text(strip=True)})
        nxt = soup.select_one(SEL["next"])
        if not nxt:
            break
        url = urljoin(url, nxt["href"])
        time.sleep(a.delay)
    with open(a.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["title", "price"]); w.writeheader(); w.writerows(rows)
    print(f"{len(rows)} rows -> {a.out}")


if __name__ == "__main__":
    main()
