#!/usr/bin/env bash
# The multi-host test: two network namespaces (scripts/netns-hosts.sh), each with its own
# D-Bus and Avahi, joined by a veth pair in 198.18.0.0/24. A daemon runs on host A; from host B,
# `share peers` sees it by name and `share send --to NAME` delivers a file across. Then the
# spoofing cases: a service that claims A's name or ID from another certificate never gets a byte.
#   scripts/multihost-test.sh [SHARE_BINARY]      (needs root; cleans up after itself)
set -euo pipefail
cd "$(dirname "$0")/.."
share=${1:-$(. scripts/env.sh; swift build --show-bin-path 2>/dev/null)/share}
[ -x "$share" ] || { echo "multihost: no share binary at $share (build first)" >&2; exit 1; }
share=$(realpath "$share")
hosts=scripts/netns-hosts.sh

work=$(mktemp -d /tmp/share-multihost.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  "$hosts" down >/dev/null 2>&1 || true
  if [ -n "${KEEP_LOGS:-}" ]; then echo "# logs kept in $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
keep_logs=${KEEP_LOGS:-}
failures=0
check() { # check DESCRIPTION COMMAND...
  local what=$1; shift
  if "$@"; then echo "ok   - $what"; else echo "FAIL - $what"; failures=$((failures + 1)); fi
}
on() { local ns=$1; shift; "$hosts" exec "$ns" "$@"; }
# start_daemon NS HOME NAME LOG: starts a daemon in NS (its pid joins $pids).
start_daemon() {
  local ns=$1 home=$2 name=$3 log=$4
  # Straight through the harness (which execs into the namespace), so $! is the daemon itself.
  "$hosts" exec "$ns" "$share" --home "$home" daemon --name "$name" --port 0 >"$log.out" 2>"$log.err" &
  pids+=($!)
}
# port_of LOG: the daemon's port once it listens.
port_of() {
  local log=$1
  for _ in $(seq 1 200); do
    port=$(sed -n 's/^listening on port //p' "$log.out")
    [ -n "$port" ] && { echo "$port"; return 0; }
    sleep 0.05
  done
  cat "$log.err" >&2
  return 1
}
# wait_visible NS HOME NAME: until `share peers` in NS lists NAME (bounded), prints the JSON line.
wait_visible() {
  local ns=$1 home=$2 name=$3
  for _ in $(seq 1 40); do
    line=$(on "$ns" "$share" --home "$home" peers --json --timeout 2 | python3 -c '
import json, sys
for line in sys.stdin:
    peer = json.loads(line)
    if peer["name"] == sys.argv[1]:
        print(line.strip()); break' "$name")
    [ -n "$line" ] && { echo "$line"; return 0; }
    sleep 0.25
  done
  return 1
}
id_of() { "$share" --home "$1" id --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'; }

"$hosts" up >/dev/null
echo "# hosts up: share-a $("$hosts" addr share-a), share-b $("$hosts" addr share-b)"

# Host A receives; it trusts B's device so nobody has to accept by hand.
mkdir -p "$work/files"
printf 'across the veth\n' >"$work/files/hello.txt"
"$share" --home "$work/b" id >/dev/null
"$share" --home "$work/a" trust add "$(id_of "$work/b")" --name host-b >/dev/null 2>&1
started=$(date +%s.%N)
start_daemon share-a "$work/a" lab-a "$work/daemon-a"
daemon_a=${pids[-1]}
port=$(port_of "$work/daemon-a")
peer=$(wait_visible share-b "$work/b" lab-a) || true
visible=$(date +%s.%N)
check "share peers on host B lists lab-a" test -n "$peer"
check "lab-a is reached at 198.18.0.1:$port" grep -q "\"198.18.0.1\",\"interface\":\"veth-b\",\"port\":$port" <<<"$peer"
check "lab-a's advertised ID is its certificate's" grep -q "\"id\":\"$(id_of "$work/a")\"" <<<"$peer"
echo "# daemon start to visible on host B: $(python3 -c "print(round(($visible-$started)*1000))") ms"

check "share send --to lab-a on host B delivers the file" \
  on share-b "$share" --home "$work/b" send "$work/files/hello.txt" --to lab-a --quiet
check "the file is in lab-a's Inbox, byte-identical" cmp -s "$work/files/hello.txt" "$work/a/Documents/Inbox/hello.txt"
check "host B remembers lab-a's ID (trust on first use)" grep -q "$(id_of "$work/a")" "$work/b/known_peers.json"
printf 'no --to needed\n' >"$work/files/only.txt"
check "with one peer nearby, share send without --to sends to it" \
  on share-b "$share" --home "$work/b" send "$work/files/only.txt" --quiet
check "... and it arrives" cmp -s "$work/files/only.txt" "$work/a/Documents/Inbox/only.txt"

# Spoof 1: another certificate advertises lab-a's name and ID from host B (avahi-publish), pointing
# at mallory's daemon. The name collides and is renamed; sending to it must fail on the certificate.
"$share" --home "$work/m" trust add "$(id_of "$work/b")" --name host-b >/dev/null 2>&1
start_daemon share-b "$work/m" mallory "$work/daemon-m"
daemon_m=${pids[-1]}
mport=$(port_of "$work/daemon-m")
"$hosts" exec share-b avahi-publish -s "lab-a" _share._tcp "$mport" v=1 "id=$(id_of "$work/a")" >"$work/spoof.out" 2>&1 &
pids+=($!)
publisher=${pids[-1]}
sleep 2
spoofed=$(on share-b "$share" --home "$work/b" peers --json --timeout 3 | python3 -c '
import json, sys
for line in sys.stdin:
    peer = json.loads(line)
    if peer["name"].startswith("lab-a") and any(a["port"] == int(sys.argv[1]) for a in peer["addresses"]):
        print(peer["name"]); break' "$mport")
# Either the spoofed record was renamed ('lab-a #2', only mallory's address: refused on the
# certificate) or it merged into lab-a's entry (same ID, two addresses: mallory's address fails
# the certificate check and the real lab-a gets the file). Never mallory.
if [ -n "$spoofed" ]; then
  printf 'only for lab-a\n' >"$work/files/spoofed.txt"
  on share-b "$share" --home "$work/b" send "$work/files/spoofed.txt" --to "$spoofed" >"$work/spoof1.out" 2>&1 && rc=0 || rc=$?
  spoof_ok() {
    if [ "$rc" -eq 0 ]; then cmp -s "$work/files/spoofed.txt" "$work/a/Documents/Inbox/spoofed.txt"
    else grep -qi "certificate\|presented" "$work/spoof1.out"; fi
  }
  check "sending to '$spoofed' (a record claiming lab-a's ID at mallory's address) reaches the real lab-a or is refused on the certificate" spoof_ok || true
  spoof_ok || sed 's/^/#   /' "$work/spoof1.out"
else
  echo "# (the spoofed record was not seen; nothing to send to)"
fi
check "mallory's Inbox stays empty" test -z "$(ls -A "$work/m/Documents/Inbox" 2>/dev/null)"

# Spoof 2: lab-a goes away and mallory takes the name with its own ID: host B, which knows
# lab-a's ID, refuses and names both IDs.
for pid in "$daemon_a" "$daemon_m" "$publisher"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
start_daemon share-b "$work/m" lab-a "$work/daemon-m2"
mport=$(port_of "$work/daemon-m2")
sleep 1.5
on share-b "$share" --home "$work/b" send "$work/files/hello.txt" --to lab-a >"$work/spoof2.out" 2>&1 && rc=0 || rc=$?
check "a new lab-a with another ID is refused" test "$rc" -ne 0
check "the refusal names both IDs" bash -c "grep -q '$(id_of "$work/a")' '$work/spoof2.out' && grep -q '$(id_of "$work/m")' '$work/spoof2.out'"
check "mallory's Inbox is still empty" test -z "$(ls -A "$work/m/Documents/Inbox" 2>/dev/null)"

if [ "$failures" -ne 0 ]; then
  echo "multihost: $failures check(s) failed; logs:" >&2
  tail -n 20 "$work"/*.err "$work"/*.out >&2 || true
  exit 1
fi
echo "multihost: all checks passed"
