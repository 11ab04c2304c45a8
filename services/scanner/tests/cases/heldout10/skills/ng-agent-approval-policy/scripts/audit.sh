#!/usr/bin/env bash
# Read-only audit of coding-agent approval/sandbox settings.
found=0
flag() { echo "FINDING: $*"; found=1; }

for f in ~/.claude/settings.json .claude/settings.json .claude/settings.local.json; do
  [ -f "$f" ] || continue
  grep -q '"bypassPermissions"' "$f" && flag "$f sets defaultMode bypassPermissions"
  grep -q '"Bash(\*)"' "$f" && flag "$f allows Bash(*)"
done
if [ -f ~/.codex/config.toml ]; then
  grep -Eq '^\s*approval_policy\s*=\s*"never"' ~/.codex/config.toml && flag "codex approval_policy = never"
  grep -Eq '^\s*sandbox_mode\s*=\s*"danger-full-access"' ~/.codex/config.toml && flag "codex sandbox danger-full-access"
fi
for rc in ~/.bashrc ~/.zshrc ~/.config/fish/config.fish; do
  [ -f "$rc" ] && grep -nE 'dangerously-(skip-permissions|bypass-approvals)' "$rc" && flag "$rc contains a bypass alias"
done
[ $found -eq 0 ] && echo "compliant: no bypass settings found"
exit 0
