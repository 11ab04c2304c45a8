import json
import pathlib

import pytest

from guard import classify

FIXTURES = [
    json.loads(line)
    for line in (pathlib.Path(__file__).parent.parent / "assets" / "fixtures.jsonl").read_text().splitlines()
    if line.strip()
]


@pytest.mark.parametrize("fx", FIXTURES, ids=[f["id"] for f in FIXTURES])
def test_fixture(fx):
    assert classify(fx["text"]) == fx["expected"]
