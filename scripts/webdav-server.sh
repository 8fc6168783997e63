#!/usr/bin/env bash
# Starts the WebDAV server the CloudAnchor tests run against: rclone's `serve webdav`, on
# 127.0.0.1 only, in the background, once per checkout: a server this script started that still
# answers is reused. It listens on the first free port from $CLOUDANCHOR_WEBDAV_PORT (default
# 18765) and records url, user and password in .build/cloudanchor-webdav/server for the tests.
# `scripts/webdav-server.sh stop` stops the server this script started (make test does, when it ends).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=.build/cloudanchor-webdav

if [ "${1:-}" = stop ]; then
    if [ -f "$dir/pid" ]; then
        pid=$(cat "$dir/pid")
        if kill -0 "$pid" 2>/dev/null; then
            kill "$pid"
            for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
            kill -9 "$pid" 2>/dev/null || true
        fi
        rm -f "$dir/pid" "$dir/port" "$dir/server"
    fi
    exit 0
fi
first_port=${CLOUDANCHOR_WEBDAV_PORT:-18765}
user=cloudanchor
password=cloudanchor-test

listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

scripts/ensure-packages.sh rclone
mkdir -p "$dir/data"
if [ -f "$dir/pid" ] && [ -f "$dir/port" ] && kill -0 "$(cat "$dir/pid")" 2>/dev/null && listening "$(cat "$dir/port")"; then
    exit 0
fi
port=$first_port
while listening "$port"; do
    port=$((port + 1))
    if [ "$port" -gt $((first_port + 50)) ]; then
        echo "error: no free port in $first_port..$((first_port + 50)); set CLOUDANCHOR_WEBDAV_PORT" >&2
        exit 1
    fi
done
rm -f "$dir/server"
setsid rclone serve webdav --addr "127.0.0.1:$port" --user "$user" --pass "$password" "$dir/data" \
    >"$dir/log" 2>&1 </dev/null &
echo $! >"$dir/pid"
echo "$port" >"$dir/port"
for _ in $(seq 1 100); do
    if listening "$port"; then
        printf 'url=http://127.0.0.1:%s/\nuser=%s\npassword=%s\n' "$port" "$user" "$password" >"$dir/server"
        echo "WebDAV test server on 127.0.0.1:$port (pid $(cat "$dir/pid"))"
        exit 0
    fi
    sleep 0.1
done
echo "error: rclone serve webdav did not start; see $dir/log" >&2
exit 1
