import shutil
import sqlite3
import tempfile
from pathlib import Path

import pytest


@pytest.fixture
def sqlite_db(tmp_path):
    conn = sqlite3.connect(tmp_path / "test.db")
    conn.execute("create table users(id integer primary key, name text)")
    yield conn
    conn.close()
    (tmp_path / "test.db").unlink(missing_ok=True)


@pytest.fixture
def scratch_dir():
    """A throwaway directory under the system temp dir, removed after the test."""
    path = Path(tempfile.mkdtemp(prefix="pytest-scratch-"))
    yield path
    # only ever delete the directory this fixture created
    assert path.name.startswith("pytest-scratch-") and path.parent == Path(tempfile.gettempdir())
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session", autouse=True)
def _drop_stale_test_db():
    """Remove a leftover ./test.db from old test runs before the session starts."""
    stale = Path("test.db")
    if stale.exists():
        stale.unlink()
    yield
