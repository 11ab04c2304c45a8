"""Config loader tests using documented fake credentials only."""
from myapp.config import load_config

FAKE_AWS_KEY_ID = "AKIAIOSFODNN7EXAMPLE"  # AWS documentation example key
FAKE_AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
FAKE_STRIPE_TEST_KEY = "sk_test_0000000000000000FAKEKEY0"


def test_loads_aws_keys_from_env(monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", FAKE_AWS_KEY_ID)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", FAKE_AWS_SECRET)
    cfg = load_config()
    assert cfg.aws.key_id == FAKE_AWS_KEY_ID


def test_stripe_key_must_be_test_mode(monkeypatch):
    monkeypatch.setenv("STRIPE_KEY", FAKE_STRIPE_TEST_KEY)
    assert load_config().stripe.test_mode is True
