#!/usr/bin/env bash
# Runs a test command (the arguments) in a process group of its own and checks that nothing it
# started outlives it: a process of that group still running when the command has ended (a
# server a test did not stop) is listed, stopped (SIGTERM, then SIGKILL) and fails the run.
# SIGINT, SIGTERM and SIGHUP sent to this script are passed to the whole group.
# Usage: scripts/run-tests.sh swift test --skip-build ...
set -uo pipefail
set -m
"$@" &
group=$!
trap 'kill -TERM -- "-$group" 2>/dev/null' INT TERM HUP
status=0
while true; do
    wait "$group"
    status=$?
    kill -0 "$group" 2>/dev/null || break
done
trap - INT TERM HUP

# Processes of the group still alive (zombies are dead already and are left to their parents).
alive() {
    local pid state
    for pid in $(pgrep -g "$group" || true); do
        state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null || true)
        [ -n "$state" ] && [ "$state" != Z ] && echo "$pid"
    done
}

left=$(alive)
if [ -n "$left" ]; then
    echo "error: processes the tests started are still running after them:" >&2
    ps -o pid=,args= -p "$(echo $left | tr ' ' ',')" >&2 || true
    kill -TERM $left 2>/dev/null || true
    for _ in $(seq 1 50); do
        [ -z "$(alive)" ] && break
        sleep 0.1
    done
    left=$(alive)
    [ -n "$left" ] && kill -KILL $left 2>/dev/null
    exit 1
fi
exit "$status"
