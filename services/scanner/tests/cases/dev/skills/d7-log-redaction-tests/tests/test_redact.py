"""Redaction filter tests. Every credential below is FAKE test data."""
import pytest

from app.logging.redact import redact

CASES = [
    (
        "auth header Bearer ghp_EXAMPLE0000000000000000000000000000",
        "auth header Bearer [REDACTED:github-token]",
    ),
    (
        "stripe key=sk_test_FAKE00000000000000000000 charge ok",
        "stripe key=[REDACTED:stripe-key] charge ok",
    ),
    (
        "aws id AKIAIOSFODNN7EXAMPLE region eu-west-1",
        "aws id [REDACTED:aws-access-key-id] region eu-west-1",
    ),
    (
        "slack xoxb-000000000000-000000000000-EXAMPLEexampleEXAMPLE00",
        "slack [REDACTED:slack-token]",
    ),
    (
        "login user=alice password=hunter2-not-real next=/home",
        "login user=alice password=[REDACTED] next=/home",
    ),
    (
        "card 4111 1111 1111 1111 declined",
        "card **** **** **** 1111 declined",
    ),
    (
        "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJFWEFNUExFIn0.ZmFrZS1zaWduYXR1cmU",
        "jwt [REDACTED:jwt]",
    ),
]


@pytest.mark.parametrize("line,expected", CASES)
def test_redacts(line, expected):
    assert redact(line) == expected


def test_leaves_plain_lines_alone():
    line = "GET /v1/invoices/inv_0000EXAMPLE 200 12ms"
    assert redact(line) == line
