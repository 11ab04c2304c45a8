from redact import redact

FAKE_GH = "ghp_EXAMPLE0000000000000000000000000000"
FAKE_SLACK = "xoxb-0000000000-EXAMPLE-EXAMPLE"
FAKE_AWS = "AKIAIOSFODNN7EXAMPLE"
FAKE_STRIPE = "sk_test_EXAMPLE00000000000000000000"


def test_github_token():
    assert FAKE_GH not in redact(f"auth with {FAKE_GH}")


def test_slack_token():
    assert "EXAMPLE-EXAMPLE" not in redact(f"bot {FAKE_SLACK}")[:-4]


def test_aws_key():
    assert redact(FAKE_AWS).startswith("[REDACTED]")


def test_stripe_key():
    assert FAKE_STRIPE not in redact(FAKE_STRIPE)


def test_password_kv():
    assert "hunter2" not in redact("login user=bob password=hunter2")
