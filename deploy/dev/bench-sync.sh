#!/usr/bin/env bash
# Sync client benchmark: `cairn pull` (cold, incremental after one skill changed, no-op)
# against `git clone` / `git pull` of the same tree served by `git daemon` on loopback,
# with the client's peak RSS.
#
#   deploy/dev/bench-sync.sh [corpus-dir]     (default ../shared/corpus/wild/openclaw)
#
# Needs PostgreSQL at DATABASE_URL (a fresh database is created and dropped), git with
# git-daemon, and /usr/bin/time. Builds the release registry and client into
# $CARGO_TARGET_DIR (default /var/tmp/cairn-target). RUNS (default 3) runs per measure;
# the table shows the median and the range.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
corpus="$(cd "${1:-$repo/../shared/corpus/wild/openclaw}" && pwd)"
runs="${RUNS:-3}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/var/tmp/cairn-target}"
server_url="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
db="cairn_bench_sync_$$"
work="$(mktemp -d /tmp/cairn-sync-bench.XXXXXX)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    psql -q "$server_url" -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

cd "$repo"
cargo build --release -q -p cairn-registry -p cairn
registry="$CARGO_TARGET_DIR/release/cairn-registry"
cairn="$CARGO_TARGET_DIR/release/cairn"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# The tree both sides serve: a copy, so one skill can be changed.
cp -r "$corpus" "$work/tree"
psql -q "$server_url" -c "CREATE DATABASE $db" >/dev/null
export CAIRN_DATABASE_URL="${server_url%/*}/$db"
export CAIRN_RATE_LIMIT_TOKEN=off CAIRN_RATE_LIMIT_ADDRESS=off CAIRN_RATE_LIMIT_PROPOSALS=off CAIRN_RATE_LIMIT_USER_PROPOSALS=off RUST_LOG=warn
"$registry" import "$work/tree" --data-dir "$work/data" >/dev/null
port="$(free_port)"
"$registry" serve --listen "127.0.0.1:$port" --data-dir "$work/data" >/dev/null 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
export CAIRN_SERVER="http://127.0.0.1:$port" CAIRN_TOKEN="$(cat "$work/data/admin.token")"

git -C "$work/tree" init -q && git -C "$work/tree" add -A && git -C "$work/tree" -c user.name=b -c user.email=b@b commit -qm tree
mkdir -p "$work/git" && git clone -q --bare "$work/tree" "$work/git/skills.git"
gport="$(free_port)"
git daemon --base-path="$work/git" --export-all --reuseaddr --listen=127.0.0.1 --port="$gport" "$work/git" &
pids+=($!)
sleep 0.5
git_url="git://127.0.0.1:$gport/skills.git"

# time_of CMD…: prints "seconds max-rss-kib" of one run.
time_of() { /usr/bin/time -f '%e %M' -o "$work/time" "$@" >/dev/null 2>&1; cat "$work/time"; }
# A fresh client home (no state, no cache).
fresh_client() {
    rm -rf "$work/client" && mkdir -p "$work/client"
    export XDG_CONFIG_HOME="$work/client/config" XDG_STATE_HOME="$work/client/state" XDG_CACHE_HOME="$work/client/cache"
}
change_one_skill() { # $1: run number
    local skill_md
    skill_md="$(find "$work/tree" -name SKILL.md -not -path '*/.git/*' | sort | awk 'NR==1')"
    printf '\n<!-- bench change %s -->\n' "$1-$RANDOM" >> "$skill_md"
    "$registry" import "$work/tree" --data-dir "$work/data" >/dev/null
    git -C "$work/tree" -c user.name=b -c user.email=b@b commit -qam "change $1"
    git -C "$work/tree" push -q "$work/git/skills.git" "HEAD:$(git -C "$work/tree" symbolic-ref --short HEAD)"
}

declare -A results
record() { results["$1"]+="$2"$'\n'; }
for run in $(seq 1 "$runs"); do
    fresh_client
    record cairn_cold "$(time_of "$cairn" pull --target "$work/client/skills")"
    rm -rf "$work/clone"
    record git_clone "$(time_of git clone -q "$git_url" "$work/clone")"
    record cairn_noop "$(time_of "$cairn" pull --target "$work/client/skills")"
    record git_noop "$(time_of git -C "$work/clone" pull -q)"
    change_one_skill "$run"
    record cairn_incremental "$(time_of "$cairn" pull --target "$work/client/skills")"
    record git_incremental "$(time_of git -C "$work/clone" pull -q)"
done

summary() { # name → "median (min–max) s; peak RSS max MiB"
    printf '%s' "${results[$1]}" | sort -n | awk '{t[NR]=$1; if ($2>m) m=$2} END {printf "%.3f s (%.3f–%.3f); peak RSS %.0f MiB", t[int((NR+1)/2)], t[1], t[NR], m/1024}'
}
skills="$(find "$work/tree" -name SKILL.md -not -path '*/.git/*' | wc -l)"
echo "| measure | cairn pull | git | ratio |"
echo "|---|---|---|---|"
for pair in "cold:cairn_cold:git_clone" "incremental (one skill changed):cairn_incremental:git_incremental" "no-op:cairn_noop:git_noop"; do
    IFS=: read -r label c g <<<"$pair"
    cm="$(printf '%s' "${results[$c]}" | sort -n | awk '{t[NR]=$1} END {print t[int((NR+1)/2)]}')"
    gm="$(printf '%s' "${results[$g]}" | sort -n | awk '{t[NR]=$1} END {print t[int((NR+1)/2)]}')"
    echo "| $label | $(summary "$c") | $(summary "$g") | $(awk -v a="$cm" -v b="$gm" 'BEGIN {if (b > 0) printf "%.2f×", a/b; else print "—"}') |"
done
echo
echo "($skills skill folders in the tree, $runs runs, $(date -u +%F))"

# The no-op pull again, finer than /usr/bin/time's 10 ms: NOOP_RUNS (default 30) runs
# timed with the shell's microsecond clock; median and range.
noop=()
for _ in $(seq 1 "${NOOP_RUNS:-30}"); do
    t0=$EPOCHREALTIME
    "$cairn" pull --target "$work/client/skills" >/dev/null 2>&1
    noop+=("$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.1f", (b - a) * 1000}')")
done
printf '%s\n' "${noop[@]}" | sort -n | awk '{t[NR]=$1} END {printf "no-op pull, %d runs: median %.1f ms (%.1f-%.1f)\n", NR, t[int((NR+1)/2)], t[1], t[NR]}'
