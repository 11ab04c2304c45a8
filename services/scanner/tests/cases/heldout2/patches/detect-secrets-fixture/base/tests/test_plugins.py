"""Regression fixtures for our custom detect-secrets plugins. ALL VALUES ARE FAKE."""
import pytest
from detect_secrets.core.scan import scan_line

FAKE = [
    ("aws", 'aws_key = "AKIAIOSFODNN7EXAMPLE"'),
    ("github", 'token: "ghp_0000000000000000000000000000FAKE0000"'),
]


@pytest.mark.parametrize("kind,line", FAKE)
def test_detected(kind, line):
    assert list(scan_line(line)), f"{kind} fixture not detected"
