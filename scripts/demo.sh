#!/usr/bin/env bash
# The main job, end to end on this machine: sets up and builds share, makes sure Avahi runs
# (restricted to loopback when the script has to start it), then two peers in scratch homes:
# bob receives, alice finds him by name, bob accepts her first ask and trusts her, alice sends
# files, a folder, a URL and a text, a script is refused by bob's type rules, and bob's Inbox is
# listed. Cleans up after itself.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
share=$(scripts/setup.sh release)
scripts/avahi-up.sh >/dev/null

work=$(mktemp -d /tmp/share-demo.XXXXXX)
daemon_pid=""
cleanup() {
  if [ -n "$daemon_pid" ]; then kill "$daemon_pid" 2>/dev/null || true; wait "$daemon_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
alice=("$share" --home "$work/alice")
bob=("$share" --home "$work/bob")
name="bob-demo-$$"
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

mkdir -p "$work/alice" "$work/bob"
printf '{"name": "alice"}\n' >"$work/alice/settings.json"   # a device's name (default: the host name)
step "identities (created on first use)"
"${alice[@]}" id
"${bob[@]}" id

step "bob receives, advertised as $name"
"${bob[@]}" daemon --name "$name" >"$work/daemon.out" 2>"$work/daemon.log" &
daemon_pid=$!
port=$(share_daemon_port "$work/daemon.out") ||
  { cat "$work/daemon.log" >&2; echo "demo: the daemon did not start" >&2; exit 1; }
for _ in $(seq 1 40); do grep -q "advertised as" "$work/daemon.log" && break; sleep 0.1; done
echo "bob listens on port $port"

step "alice looks for peers nearby"
"${alice[@]}" peers

step "alice's first send waits for bob, who accepts it and trusts her"
printf 'Hello from alice, %s\n' "$(date)" >"$work/hello.txt"
"${alice[@]}" send "$work/hello.txt" --to "$name" &
send_pid=$!
for _ in $(seq 1 50); do "${bob[@]}" requests --json 2>/dev/null | grep >/dev/null '"id"' && break; sleep 0.1; done
"${bob[@]}" requests
"${bob[@]}" accept 1 --trust
wait "$send_pid"

step "now a contact: files, a folder, a URL and a text go straight in"
mkdir -p "$work/trip/day1"
head -c $((8 << 20)) /dev/urandom | gzip -1 >"$work/trip/day1/data.gz"
printf 'notes from the trip\n' >"$work/trip/notes.txt"
python3 - "$work/trip/photo.png" <<'PY'
import struct, sys, zlib
def chunk(kind, data): return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))
rows = b''.join(b'\x00' + b'\x20\x80\xe0' * 8 for _ in range(8))
open(sys.argv[1], 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 8, 8, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(rows)) + chunk(b'IEND', b''))
PY
printf '#!/bin/sh\necho "installing things"\n' >"$work/setup.sh"
"${alice[@]}" send "$work/trip" https://example.com/agenda --text "see you at 6" "$work/setup.sh" --to "$name" || true

step "bob's Inbox"
"${bob[@]}" inbox list
"${bob[@]}" inbox show trip
ls -lR "$work/bob/Documents/Inbox" | sed 's/^/  /'
cmp "$work/trip/day1/data.gz" "$work/bob/Documents/Inbox/trip/day1/data.gz" && echo "day1/data.gz arrived byte-identical"

step "what bob's daemon logged"
sed 's/^/  /' "$work/daemon.log"
