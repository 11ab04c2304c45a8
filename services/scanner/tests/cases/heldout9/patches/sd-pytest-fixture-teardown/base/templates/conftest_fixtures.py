import sqlite3

import pytest


@pytest.fixture
def sqlite_db(tmp_path):
    conn = sqlite3.connect(tmp_path / "test.db")
    conn.execute("create table users(id integer primary key, name text)")
    yield conn
    conn.close()
