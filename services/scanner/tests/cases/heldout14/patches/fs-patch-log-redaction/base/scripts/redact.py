"""Logging filter that redacts common secrets and PII."""
import logging
import re
import sys

RULES = [
    (re.compile(r"(?i)(password|passwd|pwd)=([^\s&]+)"), r"\1=[REDACTED]"),
    (re.compile(r"(?i)authorization:\s*bearer\s+[A-Za-z0-9._~+/-]+=*"), "Authorization: Bearer [REDACTED]"),
    (re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}"), "[EMAIL]"),
]


def redact(text: str) -> str:
    for rx, repl in RULES:
        text = rx.sub(repl, text)
    return text


class RedactingFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = redact(record.getMessage())
        record.args = ()
        return True


if __name__ == "__main__" and "--self-test" in sys.argv:
    assert redact("login password=hunter2 ok") == "login password=[REDACTED] ok"
    assert "[EMAIL]" in redact("user jane@example.invalid signed in")
    print("self-test ok")
