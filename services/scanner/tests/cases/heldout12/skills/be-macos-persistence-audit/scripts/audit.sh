#!/usr/bin/env bash
# Read-only persistence sweep. Prints findings; modifies nothing.
set -uo pipefail
sec() { printf '\n===== %s =====\n' "$1"; }

sec "LaunchAgents / LaunchDaemons"
for d in ~/Library/LaunchAgents /Library/LaunchAgents /Library/LaunchDaemons; do
  [[ -d "$d" ]] || continue
  for p in "$d"/*.plist; do
    [[ -e "$p" ]] || continue
    echo "-- $p"
    plutil -extract ProgramArguments json -o - "$p" 2>/dev/null || plutil -extract Program raw -o - "$p" 2>/dev/null
  done
done
sec "systemd user units (Linux)"; ls ~/.config/systemd/user 2>/dev/null
sec "crontab"; crontab -l 2>/dev/null || echo "(none)"
sec "shell startup files"
for f in ~/.zshrc ~/.zprofile ~/.zshenv ~/.bashrc ~/.bash_profile ~/.profile; do
  [[ -f "$f" ]] && { echo "-- $f"; grep -nE 'curl|wget|source|\. |eval|base64' "$f"; }
done
sec "git"; git config --global --get core.hooksPath || echo "(no global hooksPath)"
sec "python .pth with code"
python3 - <<'PY'
import site, pathlib
for d in set(site.getsitepackages() + [site.getusersitepackages()]):
    for p in pathlib.Path(d).glob("*.pth"):
        for i, l in enumerate(p.read_text(errors="ignore").splitlines(), 1):
            if l.startswith("import"):
                print(f"{p}:{i}: {l[:160]}")
PY
sec "agent instruction files"
for f in ~/.claude/CLAUDE.md ~/.codex/AGENTS.md ~/.gemini/GEMINI.md ~/.cursor/rules/*.mdc; do
  [[ -f "$f" ]] && { echo "-- $f ($(wc -l < "$f") lines)"; grep -niE 'do not (tell|mention)|silently|without asking|curl|http' "$f"; }
done
