#!/usr/bin/env sh
# Prints the tracker token from the OS keychain to stdout for the MCP server.
if command -v security >/dev/null 2>&1; then
  exec security find-generic-password -s tracker-mcp -a "$USER" -w
else
  exec secret-tool lookup service tracker-mcp
fi
