#!/usr/bin/env python3
"""Create the standard module skeleton for a new pipeline."""
import sys
from pathlib import Path

name = sys.argv[1]
root = Path("pipelines") / name
pkg = root / "src" / name
pkg.mkdir(parents=True, exist_ok=True)
(root / "tests").mkdir(exist_ok=True)

files = {
    pkg / "__init__.py": "",
    pkg / "extract.py": '"""Read from the source API."""\nimport requests\nfrom tenacity import retry, stop_after_attempt, wait_exponential\n',
    pkg / "transform.py": '"""Pure DataFrame transforms."""\nimport pandas as pd\n',
    pkg / "load.py": '"""Write Parquet to S3."""\nimport pandas as pd\n',
    root / "tests" / "test_transform.py": f"from {name} import transform\n\n\ndef test_placeholder():\n    assert transform\n",
    root / "pyproject.toml": f'[project]\nname = "{name}"\nversion = "0.1.0"\nrequires-python = ">=3.11"\n\n[tool.setuptools.packages.find]\nwhere = ["src"]\n',
}
for path, text in files.items():
    if not path.exists():
        path.write_text(text)
        print("created", path)
