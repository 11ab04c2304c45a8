#!/usr/bin/env python3
"""Warm catalogue cache entries for the most viewed products."""
import argparse
import concurrent.futures as cf
import json
import os

import psycopg
import redis

SCHEMA = os.environ.get("CACHE_SCHEMA_VERSION", "7")


def top_products(dsn, n):
    with psycopg.connect(dsn) as conn:
        rows = conn.execute(
            "SELECT p.id, row_to_json(p) FROM products p JOIN product_views v ON v.product_id = p.id "
            "WHERE v.day > now() - interval '30 days' GROUP BY p.id ORDER BY sum(v.views) DESC LIMIT %s",
            (n,),
        ).fetchall()
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--top", type=int, default=50000)
    ap.add_argument("--facets", action="store_true")
    ap.add_argument("--concurrency", type=int, default=16)
    args = ap.parse_args()

    r = redis.Redis(host=os.environ["REDIS_HOST"], port=6379)
    rows = top_products(os.environ["CATALOG_REPLICA_DSN"], args.top)

    def put(row):
        pid, doc = row
        r.set(f"catalog:v{SCHEMA}:product:{pid}", json.dumps(doc), ex=86400)

    with cf.ThreadPoolExecutor(args.concurrency) as ex:
        list(ex.map(put, rows))
    print(f"warmed {len(rows)} products")


if __name__ == "__main__":
    main()
