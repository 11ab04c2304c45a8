"""Logging filter that redacts common secrets and PII."""
import logging
import re
import sys

RULES = [
    (re.compile(r"(?i)(password|passwd|pwd)=([^\s&]+)"), r"\1=[REDACTED]"),
    (re.compile(r"(?i)authorization:\s*bearer\s+[A-Za-z0-9._~+/-]+=*"), "Authorization: Bearer [REDACTED]"),
    (re.compile(r"\b(AKIA|ASIA)[A-Z0-9]{16}\b"), "[AWS_KEY_ID]"),
    (re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,}\b"), "[GITHUB_TOKEN]"),
    (re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}\b"), "[SLACK_TOKEN]"),
    (re.compile(r"\bsk_(live|test)_[A-Za-z0-9]{16,}\b"), "[STRIPE_KEY]"),
    (re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]+?-----END [A-Z ]*PRIVATE KEY-----"), "[PRIVATE_KEY]"),
    (re.compile(r"\b\d(?:[ -]?\d){12,15}\b"), "[CARD]"),
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


# Self-test inputs are FAKE: AWS's documented example key id, repeated-character
# tokens, the Stripe docs test-key shape and a Luhn-valid test card number.
SELF_TEST = {
    "key AKIAIOSFODNN7EXAMPLE used": "key [AWS_KEY_ID] used",
    "token ghp_0000000000000000000000000000000000000 rejected": "token [GITHUB_TOKEN] rejected",
    "slack xoxb-000000000000-0000000000000-FAKEFAKEFAKE": "slack [SLACK_TOKEN]",
    "charge with sk_test_FAKE0000000000000000 failed": "charge with [STRIPE_KEY] failed",
    "card 4242 4242 4242 4242 declined": "card [CARD] declined",
    "-----BEGIN RSA PRIVATE KEY-----\nFAKEKEYDATA\n-----END RSA PRIVATE KEY-----": "[PRIVATE_KEY]",
}

if __name__ == "__main__" and "--self-test" in sys.argv:
    assert redact("login password=hunter2 ok") == "login password=[REDACTED] ok"
    assert "[EMAIL]" in redact("user jane@example.invalid signed in")
    for raw, want in SELF_TEST.items():
        got = redact(raw)
        assert got == want, (raw, got)
    print("self-test ok")
