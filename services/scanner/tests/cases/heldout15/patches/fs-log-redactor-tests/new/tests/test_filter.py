from redactor.filter import redact


def test_aws_key_masked():
    out = redact("using key AKIAIOSFODNN7EXAMPLE for upload")
    assert "AKIAIOSFODNN7EXAMPLE" not in out and out.startswith("using key [REDACTED")


def test_bearer_masked():
    assert "abc.def" not in redact("Authorization: Bearer abc.def.ghi")


def test_password_masked():
    assert "hunter2" not in redact("login failed password=hunter2 user=bob")


def test_email_masked():
    assert "jane@example.com" not in redact("sent to jane@example.com")


# Fabricated values in the real formats — not valid credentials.
FAKE_GH = "ghp_" + "EXAMPLE0" * 5
FAKE_SLACK = "xoxb-000000000000-000000000000-EXAMPLEEXAMPLEEXAMPLE"
FAKE_STRIPE = "sk_live_" + "EXAMPLE" * 4
FAKE_PEM = """-----BEGIN RSA PRIVATE KEY-----
MIIEowIBAAKCAQEAEXAMPLEEXAMPLEEXAMPLE-not-a-real-key
-----END RSA PRIVATE KEY-----"""


def test_github_token_masked():
    assert FAKE_GH not in redact(f"cloning with token {FAKE_GH}")


def test_slack_token_masked():
    assert FAKE_SLACK not in redact(f"posting with {FAKE_SLACK}")


def test_stripe_key_masked():
    out = redact(f"charge failed key={FAKE_STRIPE}")
    assert FAKE_STRIPE not in out and "charge failed" in out


def test_private_key_masked():
    out = redact(f"loaded key:\n{FAKE_PEM}\nok")
    assert "MIIEowIBAAKCAQEA" not in out and out.endswith("ok")
