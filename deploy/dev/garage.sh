#!/usr/bin/env bash
# Runs a single-node Garage for development and tests, and prepares Cairn's bucket.
#
#   deploy/dev/garage.sh start   start the server in the background (state in $GARAGE_DIR),
#                                assign the layout on the first start, import the access key,
#                                create the bucket; prints the CAIRN_S3_* settings to use
#   deploy/dev/garage.sh server  start the server only (state already prepared); for restarts
#   deploy/dev/garage.sh stop    stop the server started from $GARAGE_DIR
#
# Settings (environment): GARAGE_BIN (default: garage on PATH, then the CI cache
# /var/tmp/cairn-garage-2.5.0/bin/garage), GARAGE_DIR (default ./garage-data),
# GARAGE_S3_PORT (3900), GARAGE_RPC_PORT (3901), GARAGE_ADMIN_PORT (3903), CAIRN_S3_BUCKET
# (cairn), CAIRN_S3_ACCESS_KEY_ID and CAIRN_S3_SECRET_ACCESS_KEY (development defaults).
# Everything listens on 127.0.0.1 only.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="${GARAGE_BIN:-}"
if [ -z "$bin" ]; then
    bin="$(command -v garage || true)"
    [ -n "$bin" ] || bin=/var/tmp/cairn-garage-2.5.0/bin/garage
fi
[ -x "$bin" ] || { echo "garage.sh: no garage binary at '$bin': cargo install --locked garage@2.5.0, or set GARAGE_BIN" >&2; exit 2; }

dir="${GARAGE_DIR:-$PWD/garage-data}"
s3_port="${GARAGE_S3_PORT:-3900}"
rpc_port="${GARAGE_RPC_PORT:-3901}"
admin_port="${GARAGE_ADMIN_PORT:-3903}"
bucket="${CAIRN_S3_BUCKET:-cairn}"
# Garage key ids are "GK" and 24 hex digits; secrets 64 hex digits. Development values.
key_id="${CAIRN_S3_ACCESS_KEY_ID:-GK0cad0c0ffee0cafe00000de1}"
secret="${CAIRN_S3_SECRET_ACCESS_KEY:-de0000000000000000000000000000000000000000000000000000000000cafe}"
config="$dir/garage.toml"

render_config() {
    mkdir -p "$dir/meta" "$dir/data"
    sed -e "s#/var/lib/garage/meta#$dir/meta#" \
        -e "s#/var/lib/garage/data#$dir/data#" \
        -e "s#0.0.0.0:3901#127.0.0.1:$rpc_port#" \
        -e "s#127.0.0.1:3901#127.0.0.1:$rpc_port#" \
        -e "s#0.0.0.0:3900#127.0.0.1:$s3_port#" \
        -e "s#0.0.0.0:3903#127.0.0.1:$admin_port#" \
        "$here/garage.toml" > "$config"
    chmod 600 "$config"
}

cli() { "$bin" -c "$config" "$@"; }

start_server() {
    if [ -f "$dir/garage.pid" ] && kill -0 "$(cat "$dir/garage.pid")" 2>/dev/null; then
        echo "garage.sh: already running (pid $(cat "$dir/garage.pid"))" >&2
        return 0
    fi
    nohup "$bin" -c "$config" server >>"$dir/garage.log" 2>&1 &
    echo $! > "$dir/garage.pid"
    # Ready when the node answers its own status over RPC.
    for _ in $(seq 1 100); do
        if cli status >/dev/null 2>&1; then return 0; fi
        kill -0 "$(cat "$dir/garage.pid")" 2>/dev/null || { echo "garage.sh: the server exited; see $dir/garage.log" >&2; tail -20 "$dir/garage.log" >&2; exit 1; }
        sleep 0.1
    done
    echo "garage.sh: the server did not answer within 10 s; see $dir/garage.log" >&2
    exit 1
}

prepare() {
    if ! cli layout show 2>/dev/null | grep -q "Current cluster layout version: [1-9]"; then
        node="$(cli node id -q | cut -d@ -f1)"
        cli layout assign -z dc1 -c 1G "$node" >/dev/null
        cli layout apply --version 1 >/dev/null
    fi
    if ! cli key info "$key_id" >/dev/null 2>&1; then
        cli key import --yes -n cairn "$key_id" "$secret" >/dev/null
    fi
    if ! cli bucket info "$bucket" >/dev/null 2>&1; then
        cli bucket create "$bucket" >/dev/null
    fi
    cli bucket allow --read --write --owner "$bucket" --key "$key_id" >/dev/null
    # The S3 endpoint may lag the layout by a moment: wait until it answers.
    for _ in $(seq 1 100); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$s3_port") 2>/dev/null; then break; fi
        sleep 0.1
    done
}

case "${1:-}" in
    start)
        render_config
        start_server
        prepare
        cat <<ENV
CAIRN_BLOB_STORE=s3
CAIRN_S3_ENDPOINT=http://127.0.0.1:$s3_port
CAIRN_S3_REGION=garage
CAIRN_S3_BUCKET=$bucket
CAIRN_S3_ACCESS_KEY_ID=$key_id
CAIRN_S3_SECRET_ACCESS_KEY=$secret
CAIRN_S3_FORCE_PATH_STYLE=true
ENV
        ;;
    server)
        [ -f "$config" ] || { echo "garage.sh: $config is missing: run 'garage.sh start' first" >&2; exit 2; }
        start_server
        ;;
    stop)
        if [ -f "$dir/garage.pid" ]; then
            pid="$(cat "$dir/garage.pid")"
            kill "$pid" 2>/dev/null || true
            for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
            rm -f "$dir/garage.pid"
        fi
        ;;
    *)
        echo "usage: garage.sh start|server|stop (see the comment at the top)" >&2
        exit 2
        ;;
esac
