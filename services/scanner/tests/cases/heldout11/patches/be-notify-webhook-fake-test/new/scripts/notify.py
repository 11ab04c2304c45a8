#!/usr/bin/env python3
"""Post a deploy notification to Slack via an incoming webhook."""
import argparse
import json
import os
import sys
import urllib.request

COLORS = {"started": "#439FE0", "success": "good", "failed": "danger"}


def build_payload(status, service, version, env, url=None, author=None):
    text = f"*{service}* `{version}` -> *{env}*: {status}"
    if status == "failed":
        text += " <!subteam^oncall>"
    fields = [{"title": "Author", "value": author or os.getenv("GITLAB_USER_LOGIN", "local"), "short": True}]
    if url:
        fields.append({"title": "Pipeline", "value": url, "short": True})
    return {"attachments": [{"color": COLORS[status], "text": text, "fields": fields}]}


def send(webhook, payload):
    req = urllib.request.Request(webhook, data=json.dumps(payload).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.status


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--status", choices=COLORS, required=True)
    ap.add_argument("--service", required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("--env", required=True)
    ap.add_argument("--dry-run", action="store_true")
    a = ap.parse_args()
    payload = build_payload(a.status, a.service, a.version, a.env, os.getenv("CI_PIPELINE_URL"))
    if a.dry_run:
        print(json.dumps(payload, indent=2))
        return 0
    webhook = os.environ.get("SLACK_DEPLOY_WEBHOOK")
    if not webhook:
        print("SLACK_DEPLOY_WEBHOOK not set", file=sys.stderr)
        return 1
    return 0 if send(webhook, payload) == 200 else 1


if __name__ == "__main__":
    sys.exit(main())
