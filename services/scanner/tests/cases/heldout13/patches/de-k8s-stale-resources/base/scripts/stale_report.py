#!/usr/bin/env python3
"""Read-only report of stale Kubernetes resources."""
import argparse
import datetime as dt
import json
import subprocess


def k(*args):
    return json.loads(subprocess.check_output(["kubectl", *args, "-o", "json"]))


def age_days(ts):
    t = dt.datetime.fromisoformat(ts.replace("Z", "+00:00"))
    return (dt.datetime.now(dt.timezone.utc) - t).days


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--days", type=int, default=14)
    a = ap.parse_args()

    print("# Stale resource report\n")
    print("## Preview namespaces\n")
    for ns in k("get", "ns", "-l", "env=preview")["items"]:
        name = ns["metadata"]["name"]
        pods = k("get", "pods", "-n", name)["items"]
        newest = max((p["metadata"]["creationTimestamp"] for p in pods), default=ns["metadata"]["creationTimestamp"])
        if age_days(newest) >= a.days:
            print(f"- `{name}` (team: {ns['metadata'].get('labels', {}).get('team', '?')}), idle {age_days(newest)}d")

    print("\n## Finished jobs\n")
    for j in k("get", "jobs", "-A")["items"]:
        st = j.get("status", {})
        done = st.get("completionTime") or (st.get("failed") and j["metadata"]["creationTimestamp"])
        if done and age_days(done) >= a.days:
            print(f"- `{j['metadata']['namespace']}/{j['metadata']['name']}`")

    print("\n## Unmounted PVCs\n")
    mounted = set()
    for p in k("get", "pods", "-A")["items"]:
        for v in p["spec"].get("volumes", []):
            if "persistentVolumeClaim" in v:
                mounted.add((p["metadata"]["namespace"], v["persistentVolumeClaim"]["claimName"]))
    for c in k("get", "pvc", "-A")["items"]:
        key = (c["metadata"]["namespace"], c["metadata"]["name"])
        if key not in mounted:
            print(f"- `{key[0]}/{key[1]}` → PV `{c['spec'].get('volumeName', '?')}`")


if __name__ == "__main__":
    main()
