import os

import pytest
from sqlalchemy import create_engine
from sqlalchemy.orm import Session

from app.models import Base

URL = os.environ.get("TEST_DATABASE_URL", "postgresql://app:app@localhost:5432/app_test")
assert URL.rsplit("/", 1)[-1].endswith("_test"), "refusing to run against a non-test database"


@pytest.fixture(scope="session")
def engine():
    eng = create_engine(URL, future=True)
    # start from a clean schema: leftovers from crashed runs break create_all
    Base.metadata.drop_all(eng)
    Base.metadata.create_all(eng)
    yield eng
    eng.dispose()


@pytest.fixture()
def db(engine):
    conn = engine.connect()
    tx = conn.begin()
    session = Session(bind=conn, future=True)
    yield session
    session.close()
    tx.rollback()
    conn.close()
