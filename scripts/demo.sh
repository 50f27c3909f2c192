#!/usr/bin/env bash
# The main job, end to end on this machine: sets up and builds share, starts a receiver in a
# scratch home, sends it a file from another scratch home, and lists the receiver's Inbox.
set -euo pipefail
cd "$(dirname "$0")/.."
share=$(scripts/setup.sh release)

work=$(mktemp -d /tmp/share-demo.XXXXXX)
daemon_pid=""
cleanup() {
  [ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

echo "== identities"
"$share" --home "$work/alice" id
"$share" --home "$work/bob" id

echo "== bob receives"
"$share" --home "$work/bob" daemon --name bob --port 0 >"$work/daemon.out" 2>"$work/daemon.log" &
daemon_pid=$!
for _ in $(seq 1 100); do
  port=$(sed -n 's/^listening on port //p' "$work/daemon.out")
  [ -n "$port" ] && break
  sleep 0.05
done
[ -n "${port:-}" ] || { cat "$work/daemon.log" >&2; echo "demo: the daemon did not start" >&2; exit 1; }
echo "bob listens on port $port"

echo "== alice sends"
printf 'Hello from alice, %s\n' "$(date)" >"$work/hello.txt"
head -c $((8 << 20)) /dev/urandom >"$work/random.bin"
"$share" --home "$work/alice" send "$work/hello.txt" "$work/random.bin" --to "127.0.0.1:$port"

echo "== bob's Inbox"
"$share" --home "$work/bob" inbox list
ls -l "$work/bob/Documents/Inbox"
cmp "$work/random.bin" "$work/bob/Documents/Inbox/random.bin" && echo "random.bin arrived byte-identical"
