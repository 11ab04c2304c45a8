#!/usr/bin/env python3
"""Extract and defang IOCs from an .eml file. Offline only: no network calls."""
import email
import email.policy
import hashlib
import re
import sys

URL_RE = re.compile(r"https?://[^\s\"'<>]+", re.I)
IP_RE = re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}\b")


def defang(s: str) -> str:
    return s.replace("http", "hxxp").replace(".", "[.]")


def main(path: str) -> None:
    with open(path, "rb") as fh:
        msg = email.message_from_binary_file(fh, policy=email.policy.default)
    print(f"# IOCs for {path}\n")
    print(f"- From: `{defang(str(msg['From']))}`")
    for hdr in msg.get_all("Received", []):
        for ip in IP_RE.findall(hdr):
            print(f"- Received IP: `{defang(ip)}`")
    urls = set()
    for part in msg.walk():
        if part.get_content_maintype() == "text":
            urls.update(URL_RE.findall(part.get_content()))
        fn = part.get_filename()
        if fn:
            data = part.get_payload(decode=True) or b""
            print(f"- Attachment `{fn}` sha256 `{hashlib.sha256(data).hexdigest()}`")
    for u in sorted(urls):
        print(f"- URL: `{defang(u)}`")


if __name__ == "__main__":
    main(sys.argv[1])
