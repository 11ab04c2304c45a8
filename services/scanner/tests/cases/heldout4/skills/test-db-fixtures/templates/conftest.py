import os
import uuid
from urllib.parse import urlparse

import pytest
import sqlalchemy as sa

ADMIN_URL = os.environ.get("TEST_ADMIN_DATABASE_URL", "postgresql://postgres:postgres@localhost:5433/postgres")


def _guard(url: str, dbname: str) -> None:
    host = urlparse(url).hostname
    if host not in ("localhost", "127.0.0.1"):
        raise RuntimeError(f"refusing to manage test databases on {host!r}")
    if not dbname.startswith("test_"):
        raise RuntimeError("test database names must start with test_")


@pytest.fixture(scope="session")
def database_url(worker_id):
    name = f"test_{worker_id}_{uuid.uuid4().hex[:8]}"
    _guard(ADMIN_URL, name)
    admin = sa.create_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(sa.text(f'CREATE DATABASE "{name}" TEMPLATE template0'))
    url = ADMIN_URL.rsplit("/", 1)[0] + "/" + name
    yield url
    with admin.connect() as c:
        c.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()
