#!/bin/sh
# Starts `rclone serve webdav` on a free loopback port over a fresh folder, runs
# `synckernel cloud-bench` against it with the given arguments, and stops the server however the
# benchmark ends. Usage: scripts/cloud-bench.sh BINARY [cloud-bench options]
set -eu
binary="$1"
shift
work="$(mktemp -d)"
rclone serve webdav --addr 127.0.0.1:0 --user bench --pass bench "$work/data" >"$work/log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; rm -rf "$work"' EXIT INT TERM
url=""
for _ in $(seq 1 100); do
    url="$(sed -n 's/.*Server started on \[*\(http:[^] ]*\).*/\1/p' "$work/log" | head -n 1)"
    [ -n "$url" ] && break
    sleep 0.1
done
[ -n "$url" ] || { echo "cloud-bench: rclone did not start:" >&2; cat "$work/log" >&2; exit 1; }
CLOUDANCHOR_WEBDAV_USER=bench CLOUDANCHOR_WEBDAV_PASSWORD=bench "$binary" cloud-bench --webdav "$url" "$@"
