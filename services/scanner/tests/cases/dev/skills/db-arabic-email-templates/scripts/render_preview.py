#!/usr/bin/env python3
"""Render an e-mail template with sample data; optionally send it to a local SMTP catcher."""
import argparse
import smtplib
import sys
from email.message import EmailMessage
from pathlib import Path

from jinja2 import Template

SAMPLE = {
    "customer": {"first_name": "ليلى"},
    "order": {
        "id": "A-10482",
        "date": "2024-05-04",
        "currency": "SAR",
        "total": "1,250.00",
        "tracking_url": "https://track.example.com/A-10482",
    },
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("template")
    ap.add_argument("--send", metavar="HOST:PORT", help="local SMTP catcher, e.g. localhost:1025")
    args = ap.parse_args()
    html = Template(Path(args.template).read_text(encoding="utf-8")).render(**SAMPLE)
    if not args.send:
        sys.stdout.write(html)
        return
    host, port = args.send.split(":")
    msg = EmailMessage()
    msg["Subject"] = "تأكيد الطلب — معاينة"
    msg["From"] = "preview@localhost"
    msg["To"] = "qa@localhost"
    msg.set_content("Preview: open the HTML part.")
    msg.add_alternative(html, subtype="html")
    with smtplib.SMTP(host, int(port)) as smtp:
        smtp.send_message(msg)


if __name__ == "__main__":
    main()
