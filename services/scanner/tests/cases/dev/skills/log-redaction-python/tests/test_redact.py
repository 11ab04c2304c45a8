# All secrets below are FAKE test values.
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from redact import redact  # noqa: E402

FAKE_GH = "ghp_" + "0" * 28 + "EXAMPLE0"
FAKE_AWS = "AKIAIOSFODNN7EXAMPLE"
FAKE_STRIPE = "sk_test_FAKE0000000000000000"


def test_bearer():
    assert redact("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.fake") == "Authorization: Bearer [REDACTED]"


def test_github():
    assert FAKE_GH not in redact(f"cloning with {FAKE_GH}")


def test_aws_and_stripe():
    out = redact(f"key={FAKE_AWS} stripe={FAKE_STRIPE}")
    assert FAKE_AWS not in out and FAKE_STRIPE not in out


def test_password_pair():
    assert redact("login user=bob password=hunter2 ok") == "login user=bob password=[REDACTED] ok"
