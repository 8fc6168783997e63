#!/usr/bin/env bash
# Starts the WebDAV server the CloudAnchor tests run against: rclone's `serve webdav`, on
# 127.0.0.1 only, in the background, once. A server this script started that still answers is
# reused. Writes .build/cloudanchor-webdav/server (url, user, password) for the tests.
# Usage: scripts/webdav-server.sh            (port: $CLOUDANCHOR_WEBDAV_PORT, default 18765)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=.build/cloudanchor-webdav
port=${CLOUDANCHOR_WEBDAV_PORT:-18765}
user=cloudanchor
password=cloudanchor-test

listening() { (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; }

scripts/ensure-packages.sh rclone
mkdir -p "$dir/data"
if [ -f "$dir/pid" ] && kill -0 "$(cat "$dir/pid")" 2>/dev/null && listening; then
    exit 0
fi
if listening; then
    echo "error: 127.0.0.1:$port is taken by another process; set CLOUDANCHOR_WEBDAV_PORT" >&2
    exit 1
fi
setsid rclone serve webdav --addr "127.0.0.1:$port" --user "$user" --pass "$password" "$dir/data" \
    >"$dir/log" 2>&1 </dev/null &
echo $! >"$dir/pid"
for _ in $(seq 1 100); do
    if listening; then
        printf 'url=http://127.0.0.1:%s/\nuser=%s\npassword=%s\n' "$port" "$user" "$password" >"$dir/server"
        echo "WebDAV test server on 127.0.0.1:$port (pid $(cat "$dir/pid"))"
        exit 0
    fi
    sleep 0.1
done
echo "error: rclone serve webdav did not start; see $dir/log" >&2
exit 1
