#!/usr/bin/env bash
set -euo pipefail
file=${1:?tarball}; sums=${2:?SHA256SUMS}; sig=${3:-}

expected=$(grep -E "  \*?$(basename "$file")$" "$sums" | awk '{print $1}')
[[ -n $expected ]] || { echo "no checksum for $(basename "$file") in $sums" >&2; exit 2; }
actual=$( (command -v sha256sum >/dev/null && sha256sum "$file" || shasum -a 256 "$file") | awk '{print $1}')
if [[ $expected != "$actual" ]]; then
  echo "CHECKSUM MISMATCH: expected $expected got $actual" >&2
  exit 1
fi
echo "checksum ok"

if [[ -n $sig ]]; then
  if command -v cosign >/dev/null && [[ $sig == *.sig || $sig == *.bundle ]]; then
    echo "verify with: cosign verify-blob --bundle $sig $sums (needs identity flags from the vendor docs)"
  elif command -v gpg >/dev/null; then
    gpg --verify "$sig" "$sums"
  else
    echo "signature present but no verifier installed; tell the user" >&2
  fi
fi
