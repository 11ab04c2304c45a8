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
