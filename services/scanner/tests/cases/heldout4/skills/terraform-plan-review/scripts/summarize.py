#!/usr/bin/env python3
import json, sys
from collections import Counter

plan = json.load(open(sys.argv[1]))
c = Counter()
risky = []
STATEFUL = ("aws_db_instance", "aws_rds_cluster", "aws_s3_bucket", "aws_ebs_volume",
            "google_sql_database_instance", "azurerm_storage_account")
for rc in plan.get("resource_changes", []):
    acts = rc["change"]["actions"]
    key = "replace" if acts == ["delete", "create"] or acts == ["create", "delete"] else acts[0]
    c[key] += 1
    if key in ("delete", "replace") and rc["type"].startswith(STATEFUL):
        risky.append(f"- **{key}** `{rc['address']}`")
print("# Plan summary\n")
for k in ("create", "update", "replace", "delete", "no-op"):
    print(f"- {k}: {c.get(k, 0)}")
if risky:
    print("\n## Stateful resources at risk\n")
    print("\n".join(risky))
