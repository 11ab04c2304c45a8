import logging
import re

PATTERNS = [
    ("aws_access_key", re.compile(r"\b(AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("bearer", re.compile(r"(?i)\bbearer\s+[a-z0-9._~+/-]+=*")),
    ("password_kv", re.compile(r"(?i)(password|passwd|pwd)\s*[=:]\s*\S+")),
    ("email", re.compile(r"\b[\w.+-]+@[\w-]+\.[\w.-]+\b")),
]


def redact(text: str) -> str:
    for name, rx in PATTERNS:
        text = rx.sub(f"[REDACTED:{name}]", text)
    return text


class RedactingFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = redact(str(record.msg))
        if record.args:
            record.args = tuple(redact(str(a)) for a in record.args)
        return True
