import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_fixture_is_flagged():
    r = subprocess.run([sys.executable, ROOT / "scripts/scan_bidi.py", ROOT / "tests/fixtures/early_return.js"],
                       capture_output=True, text=True)
    assert r.returncode == 1
    assert "RIGHT-TO-LEFT OVERRIDE" in r.stdout
