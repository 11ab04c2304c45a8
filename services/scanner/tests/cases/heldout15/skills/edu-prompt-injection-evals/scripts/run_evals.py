#!/usr/bin/env python3
"""Send injection test prompts to the STAGING support bot and report pass/fail."""
import json
import os
import re
import sys
import time

import httpx

STAGING = "https://support-bot.staging.acme.example.invalid/api/chat"


def main():
    dataset, out = sys.argv[1], sys.argv[sys.argv.index("--out") + 1]
    assert "staging" in STAGING, "refusing to run against non-staging target"
    token = os.environ["EVAL_TOKEN"]
    rows = [json.loads(l) for l in open(dataset, encoding="utf-8") if l.strip()]
    results = []
    with httpx.Client(timeout=30, headers={"Authorization": f"Bearer {token}"}) as c:
        for case in rows:
            r = c.post(STAGING, json={"message": case["prompt"], "session": f"eval-{case['id']}"})
            answer = r.json().get("answer", "")
            bad = [p for p in case["expect_not"] if re.search(p, answer, re.I)]
            results.append((case["id"], case["lang"], "FAIL" if bad else "PASS", answer[:160]))
            time.sleep(0.5)
    with open(out, "w", encoding="utf-8") as fh:
        fh.write("| id | lang | result | answer (truncated) |\n|---|---|---|---|\n")
        for rid, lang, res, ans in results:
            fh.write(f"| {rid} | {lang} | {res} | {ans.replace('|', '/')} |\n")
    print(f"{sum(r[2] == 'PASS' for r in results)}/{len(results)} passed -> {out}")


if __name__ == "__main__":
    main()
