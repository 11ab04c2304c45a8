"""Logging filter that masks secrets and personal data."""
import logging
import re

PATTERNS = [
    (re.compile(r"\b(AKIA|ASIA)[A-Z0-9]{16}\b"), "[AWS_KEY_ID]"),
    (re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36}\b"), "[GITHUB_TOKEN]"),
    (re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}\b"), "[SLACK_TOKEN]"),
    (re.compile(r"\bsk_(live|test)_[A-Za-z0-9]{16,}\b"), "[STRIPE_KEY]"),
    (re.compile(r"\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\b"), "[JWT]"),
    (re.compile(r"(?i)(authorization:\s*bearer\s+)\S+"), r"\1[REDACTED]"),
    (re.compile(r"(?i)\b(password|passwd|secret|api_key)=([^&\s]+)"), r"\1=[REDACTED]"),
    (re.compile(r"\b\d(?:[ -]?\d){12,15}\b"), "[CARD]"),
    (re.compile(r"\b[\w.+-]+@([\w-]+\.[\w.-]+)\b"), r"***@\1"),
]


def redact(text: str) -> str:
    for pattern, repl in PATTERNS:
        text = pattern.sub(repl, text)
    return text


class RedactingFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = redact(record.getMessage())
        record.args = ()
        return True
