from redact import redact

# All values below are FAKE / public test values.
FAKE_AWS = "AKIAIOSFODNN7EXAMPLE"
FAKE_JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ0ZXN0In0.c2lnbmF0dXJl"
FAKE_PEM = """-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEAAAAAFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKE
-----END OPENSSH PRIVATE KEY-----"""
VISA_TEST_CARD = "4111 1111 1111 1111"


def test_aws_key():
    assert FAKE_AWS not in redact(f"using key {FAKE_AWS}")


def test_jwt():
    assert redact(f"Authorization: Bearer {FAKE_JWT}").endswith("eyJ****")


def test_kv():
    assert redact("login ok password=hunter2 user=bob") == "login ok password=**** user=bob"


def test_pem():
    assert redact(FAKE_PEM) == "[REDACTED PEM]"


def test_card():
    assert redact(VISA_TEST_CARD) == "**** **** **** 1111"
