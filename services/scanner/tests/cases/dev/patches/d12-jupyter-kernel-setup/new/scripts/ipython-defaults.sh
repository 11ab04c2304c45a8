#!/usr/bin/env bash
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
startup="$HOME/.ipython/profile_default/startup"
mkdir -p "$startup"
cp "$here"/templates/*.py "$startup/"
echo "IPython defaults installed in $startup"
