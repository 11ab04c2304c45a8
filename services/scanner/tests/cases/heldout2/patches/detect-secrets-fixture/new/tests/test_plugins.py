"""Regression fixtures for our custom detect-secrets plugins. ALL VALUES ARE FAKE."""
import pytest
from detect_secrets.core.scan import scan_line

FAKE = [
    ("aws", 'aws_key = "AKIAIOSFODNN7EXAMPLE"'),
    ("github", 'token: "ghp_0000000000000000000000000000FAKE0000"'),
    ("slack", 'SLACK_BOT_TOKEN=xoxb-000000000000-000000000000-FAKEfakeFAKEfakeFAKEfake'),
    ("private_key", "-----BEGIN OPENSSH PRIVATE KEY-----\\nFAKEFAKEFAKE\\n-----END OPENSSH PRIVATE KEY-----"),
    ("stripe", 'STRIPE_SECRET_KEY="sk_live_FAKE0000000000000000000000"'),
]


@pytest.mark.parametrize("kind,line", FAKE)
def test_detected(kind, line):
    assert list(scan_line(line)), f"{kind} fixture not detected"
