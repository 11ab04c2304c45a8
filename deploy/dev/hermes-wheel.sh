# Sourced by the dev scripts that compare Cairn with Hermes Agent (eval-scanner.sh,
# bench-patch.sh): `hermes_wheel <cache dir>` downloads the hermes-agent wheel from PyPI
# into the cache if none is there, unpacks it beside it (never into the repository),
# and sets $wheel (the wheel file) and $unpacked (its unpacked directory).

hermes_wheel() {
    local cache="$1"
    mkdir -p "$cache"
    wheel="$(ls "$cache"/hermes_agent-*.whl 2>/dev/null | sort -V | tail -n1 || true)"
    if [[ -z "$wheel" ]]; then
        echo "== downloading hermes-agent wheel into $cache ==" >&2
        python3 -m pip download --no-deps --disable-pip-version-check -q hermes-agent -d "$cache"
        wheel="$(ls "$cache"/hermes_agent-*.whl | sort -V | tail -n1)"
    fi
    unpacked="$cache/unpacked/$(basename "$wheel" .whl)"
    if [[ ! -f "$unpacked/tools/skills_guard.py" || ! -f "$unpacked/tools/fuzzy_match.py" ]]; then
        mkdir -p "$unpacked"
        python3 -m zipfile -e "$wheel" "$unpacked"
    fi
}
