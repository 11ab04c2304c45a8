import logging
import re

PATTERNS = [
    re.compile(r"ghp_[A-Za-z0-9]{20,}"),
    re.compile(r"xox[abp]-[A-Za-z0-9-]{10,}"),
    re.compile(r"AKIA[0-9A-Z]{16}"),
    re.compile(r"sk_(live|test)_[A-Za-z0-9]{16,}"),
    re.compile(r"(?i)(password|passwd|pwd)=\S+"),
]


def redact(text):
    for pat in PATTERNS:
        text = pat.sub(lambda m: "[REDACTED]" + m.group(0)[-4:], text)
    return text


class RedactFilter(logging.Filter):
    def filter(self, record):
        record.msg = redact(str(record.msg))
        if record.args:
            record.args = tuple(redact(str(a)) for a in record.args)
        return True
