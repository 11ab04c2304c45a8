#!/usr/bin/env bash
# Merge team defaults into ~/.codex/config.toml; existing keys win.
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
DEST="${CODEX_HOME:-$HOME/.codex}/config.toml"
mkdir -p "$(dirname "$DEST")"
[[ -f "$DEST" ]] && cp "$DEST" "$DEST.bak"
python3 - "$HERE/templates/config.toml" "$DEST" <<'PY'
import sys, tomllib, pathlib
tpl = tomllib.loads(pathlib.Path(sys.argv[1]).read_text())
dest = pathlib.Path(sys.argv[2])
cur = tomllib.loads(dest.read_text()) if dest.exists() else {}
def merge(a, b):
    for k, v in b.items():
        if k not in a: a[k] = v
        elif isinstance(a[k], dict) and isinstance(v, dict): merge(a[k], v)
    return a
out = merge(cur, tpl)
def dump(d, prefix=""):
    lines, tables = [], []
    for k, v in d.items():
        if isinstance(v, dict): tables.append((k, v))
        else: lines.append(f"{k} = {v!r}".replace("'", '"') if not isinstance(v, bool) else f"{k} = {str(v).lower()}")
    text = "\n".join(lines) + ("\n" if lines else "")
    for k, v in tables:
        name = f"{prefix}{k}"
        text += f"\n[{name}]\n" + dump(v, name + ".")
    return text
dest.write_text(dump(out))
PY
echo "updated $DEST"
