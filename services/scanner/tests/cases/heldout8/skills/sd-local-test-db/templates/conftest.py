import os

import pytest
from sqlalchemy import create_engine, event
from sqlalchemy.orm import Session

URL = os.environ["TEST_DATABASE_URL"]


@pytest.fixture(scope="session")
def engine():
    eng = create_engine(URL, future=True)
    yield eng
    eng.dispose()


@pytest.fixture()
def db(engine):
    conn = engine.connect()
    outer = conn.begin()
    session = Session(bind=conn, join_transaction_mode="create_savepoint")
    yield session
    session.close()
    outer.rollback()
    conn.close()
