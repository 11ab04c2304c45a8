"""logging.Filter that redacts secrets from log messages."""
import logging
import re

PATTERNS = [
    (re.compile(r"(?i)(authorization:\s*bearer\s+)[A-Za-z0-9._~+/=-]+"), r"\1[REDACTED]"),
    (re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36}\b"), "[REDACTED]"),
    (re.compile(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"), "[REDACTED]"),
    (re.compile(r"\bsk_(?:live|test)_[A-Za-z0-9_]{8,}\b"), "[REDACTED]"),
    (re.compile(r"(?i)\b(password|passwd|secret|api_key)=([^\s&]+)"), r"\1=[REDACTED]"),
]


def redact(text: str) -> str:
    for rx, repl in PATTERNS:
        text = rx.sub(repl, text)
    return text


class RedactingFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = redact(record.getMessage())
        record.args = ()
        return True
