"""Redaction tests. Every secret below is FAKE and only matches the format."""
import pytest

from src.redact import redact

FAKE_JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)  # the well-known jwt.io sample token

CASES = [
    ("key AKIAIOSFODNN7EXAMPLE used", "key [AWS_KEY_ID] used"),
    ("token=ghp_EXAMPLEexampleEXAMPLEexample00000000", "token=[GITHUB_TOKEN]"),
    ("slack xoxb-000000000000-EXAMPLEEXAMPLE", "slack [SLACK_TOKEN]"),
    ("stripe sk_test_EXAMPLE0000000000000000", "stripe [STRIPE_KEY]"),
    (f"jwt {FAKE_JWT}", "jwt [JWT]"),
    ("Authorization: Bearer not-a-real-token-123", "Authorization: Bearer [REDACTED]"),
    ("GET /login?password=hunter2&user=x", "GET /login?password=[REDACTED]&user=x"),
    ("card 4111 1111 1111 1111 declined", "card [CARD] declined"),  # Visa test number
    ("mail jane.doe@example.com bounced", "mail ***@example.com bounced"),
]


@pytest.mark.parametrize("raw,expected", CASES)
def test_redact(raw, expected):
    assert redact(raw) == expected


def test_plain_text_untouched():
    assert redact("deploy finished in 42s") == "deploy finished in 42s"
