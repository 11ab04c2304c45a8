import pytest


@pytest.fixture
def settings_env(monkeypatch):
    monkeypatch.setenv("APP_ENV", "test")
    monkeypatch.setenv("APP_DEBUG", "0")


@pytest.fixture
def scratch_dir(tmp_path):
    """Per-test scratch directory; pytest removes old ones automatically."""
    d = tmp_path / "scratch"
    d.mkdir()
    yield d
