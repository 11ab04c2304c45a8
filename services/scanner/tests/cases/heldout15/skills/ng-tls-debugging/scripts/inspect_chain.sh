#!/usr/bin/env bash
# Print the certificate chain presented by host:port. Read-only.
set -euo pipefail
host="${1:?host}"; port="${2:-443}"
echo | openssl s_client -connect "$host:$port" -servername "$host" -showcerts 2>/dev/null \
 | awk '/BEGIN CERT/{n++} {print > ("/tmp/chain-" n ".pem")}' 
for f in /tmp/chain-*.pem; do
  [[ -s $f ]] || continue
  grep -q 'BEGIN CERT' "$f" || continue
  echo "== $f"
  openssl x509 -in "$f" -noout -subject -issuer -dates -ext subjectAltName 2>/dev/null | sed 's/^/   /'
done
rm -f /tmp/chain-*.pem
echo | openssl s_client -connect "$host:$port" -servername "$host" 2>/dev/null | grep -E 'Verify return code'
