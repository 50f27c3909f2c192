#!/usr/bin/env bash
# The multi-host test: two network namespaces (scripts/netns-hosts.sh), each with its own
# D-Bus and Avahi, joined by a veth pair in 198.18.0.0/24. A daemon runs on host A; from host B,
# `share peers` sees it by name and `share send --to NAME` delivers a file across; without --to,
# the one peer nearby, then with three a refusal or a numbered choice (tmux). Then the
# spoofing cases: a service that claims A's name or ID from another certificate never gets a byte.
#   scripts/multihost-test.sh [SHARE_BINARY]      (needs root; cleans up after itself)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
share=$(share_binary "${1:-}" multihost)
hosts=scripts/netns-hosts.sh

work=$(mktemp -d /tmp/share-multihost.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  tmux -S "$work/tmux.sock" kill-server >/dev/null 2>&1 || true
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
# port_of LOG: the daemon's port once it listens (up to 30 s: a loaded CI machine); else says
# what it waited for, with the daemon's output, and fails.
port_of() {
  local log=$1
  share_daemon_port "$log.out" && return 0
  echo "not ok - the daemon logging to $log.{out,err} did not say 'listening on port' within 30 s" >&2
  sed 's/^/#   out: /' "$log.out" >&2
  sed 's/^/#   err: /' "$log.err" >&2
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

# Three peers nearby (issue 12.1): lab-a2 beside lab-a on host A, and lab-b2 on host B itself
# (found through B's own Avahi). Without --to, share send picks none on its own: off a terminal
# it refuses and lists the three; on a terminal (tmux) a person chooses by number.
for h in a2 b2; do "$share" --home "$work/$h" trust add "$(id_of "$work/b")" --name host-b >/dev/null 2>&1; done
start_daemon share-a "$work/a2" lab-a2 "$work/daemon-a2"
daemon_a2=${pids[-1]}
start_daemon share-b "$work/b2" lab-b2 "$work/daemon-b2"
daemon_b2=${pids[-1]}
port_of "$work/daemon-a2" >/dev/null && port_of "$work/daemon-b2" >/dev/null
wait_visible share-b "$work/b" lab-a2 >/dev/null || true
wait_visible share-b "$work/b" lab-b2 >/dev/null || true
printf 'which one?\n' >"$work/files/which.txt"
on share-b "$share" --home "$work/b" send "$work/files/which.txt" </dev/null >"$work/which.out" 2>&1 && rc=0 || rc=$?
check "with three peers nearby, share send without --to off a terminal refuses" test "$rc" -eq 1
listed() { grep -q 'several peers are nearby' "$work/which.out" && for n in lab-a lab-a2 lab-b2; do grep -Eq "^ +[0-9]+\. $n \(" "$work/which.out" || return 1; done; }
check "... and lists lab-a, lab-a2 and lab-b2" listed
listed || sed 's/^/#   /' "$work/which.out"
none_got_it() { for h in a a2 b2; do [ ! -e "$work/$h/Documents/Inbox/which.txt" ] || return 1; done; }
check "... and sends to none of them" none_got_it
tmux_sock="$work/tmux.sock"
tmux -S "$tmux_sock" new-session -d -x 120 -y 30 \
  "$(realpath "$hosts") exec share-b '$share' --home '$work/b' send '$work/files/which.txt'; echo share-exit=\$?; sleep 600"
screen_has() { for _ in $(seq 1 200); do tmux -S "$tmux_sock" capture-pane -p | grep >/dev/null "$1" && return 0; sleep 0.1; done; return 1; }
choice=""
if screen_has 'Send to which one?'; then
  choice=$(tmux -S "$tmux_sock" capture-pane -p | sed -n 's/^ *\([0-9]*\)\. lab-b2 (.*/\1/p' | awk "NR == 1")
fi
[ -n "$choice" ] && tmux -S "$tmux_sock" send-keys "$choice" Enter
check "on a terminal, a numbered choice: lab-b2 chosen by its number" screen_has 'share-exit=0'
check "... receives the file, and only it" bash -c "cmp -s '$work/files/which.txt' '$work/b2/Documents/Inbox/which.txt' && [ ! -e '$work/a/Documents/Inbox/which.txt' ] && [ ! -e '$work/a2/Documents/Inbox/which.txt' ]"
tmux -S "$tmux_sock" capture-pane -p | sed 's/^/#   /'
tmux -S "$tmux_sock" kill-server 2>/dev/null || true
for pid in "$daemon_a2" "$daemon_b2"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done

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
# certificate, or refused before connecting as a copy of lab-a's record) or it merged into
# lab-a's entry (same ID, two addresses: mallory's address fails the certificate check and the
# real lab-a gets the file). Never mallory.
if [ -n "$spoofed" ]; then
  printf 'only for lab-a\n' >"$work/files/spoofed.txt"
  on share-b "$share" --home "$work/b" send "$work/files/spoofed.txt" --to "$spoofed" >"$work/spoof1.out" 2>&1 && rc=0 || rc=$?
  spoof_ok() {
    if [ "$rc" -eq 0 ]; then cmp -s "$work/files/spoofed.txt" "$work/a/Documents/Inbox/spoofed.txt"
    else grep -qi "certificate\|presented\|impersonate" "$work/spoof1.out"; fi
  }
  check "sending to '$spoofed' (a record claiming lab-a's ID at mallory's address) reaches the real lab-a or is refused" spoof_ok || true
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

# --- LocalSend across the hosts (issue 15) -------------------------------------------------
# localsend-cli (PyPI, a LocalSend client nobody here wrote; scripts/localsend/setup-venv.sh) on
# host B, a `share daemon --localsend` on host A (everyone mode: localsend-cli proves no identity,
# so it is a stranger whose asks are accepted on A with `share accept`).
#   B -> A: a photo, several files, a text, a `.png` that is an ELF (refused as it streams,
#           localsend-cli is told), a contacts-only refusal (localsend-cli's exit status);
#   A -> B: `localsend-cli receive` announces itself by multicast, A's `share peers` lists it
#           (marked LocalSend), `share send FILE --to ALIAS` and `--text` reach it.
# localsend-cli has no option for its port or interface: port 53317, multicast out through the
# route the kernel picks. Host B's only route is 198.18.0.0/24, which 224.0.0.167 is not in, so
# its announcements would fail with ENETUNREACH (it swallows the error); host B gets the route a
# real host has through its default route: 224.0.0.0/4 on its LAN interface.
localsend_venv=${SHARE_LOCALSEND_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/share/localsend-venv}
# ls_cli HOME ARGS...: localsend-cli on host B, its certificate under HOME (no CA bundle
# variables: requests would let them override localsend-cli's `verify = False`).
ls_cli() {
  local home=$1; shift
  on share-b env -u REQUESTS_CA_BUNDLE -u CURL_CA_BUNDLE HOME="$home" PYTHONUNBUFFERED=1 \
    "$localsend_venv/bin/localsend-cli" "$@"
}
# ls_reported FILE EVENT NAME TEXT: localsend-cli's --json output in FILE has an EVENT about
# file NAME whose message (or text) holds TEXT.
ls_reported() {
  python3 -c '
import json, sys
path, kind, name, text = sys.argv[1:]
for line in open(path):
    try: event = json.loads(line)
    except ValueError: continue
    if event.get("event") == kind and event.get("name", name) == name \
            and text in event.get("message", event.get("text", "")):
        sys.exit(0)
sys.exit(1)' "$@"
}
# ls_send_accepted NAME FILE...: localsend-cli on B sends FILEs to A ($work/ls-NAME.out); its ask
# waits in A's `share requests` and is accepted there. Its exit status.
ls_send_accepted() {
  local name=$1 id="" sender; shift
  ls_cli "$work/ls-sender" send "$("$hosts" addr share-a)" "$@" --json >"$work/ls-$name.out" 2>&1 &
  sender=$!
  for _ in $(seq 1 200); do
    id=$("$share" --home "$work/ls-a" requests --json |
      python3 -c 'import json, sys; asks = [json.loads(l)["id"] for l in sys.stdin.readlines() if l.strip()]; print(asks[0] if asks else "")')
    [ -n "$id" ] && break
    sleep 0.05
  done
  [ -n "$id" ] && "$share" --home "$work/ls-a" accept "$id" >>"$work/ls-control.out" 2>&1
  [ -n "$id" ] || { echo "# no ask from localsend-cli ($name) on lab-ls" >&2; kill "$sender" 2>/dev/null || true; }
  wait "$sender"
}
# inbox_says HOME NAME KEY=VALUE...: NAME's row of `share inbox list --json` has these values
# (VALUE as JSON, or a string if it is not JSON).
inbox_says() {
  local home=$1; shift
  "$share" --home "$home" inbox list --json | python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin if l.strip()]
row = next((r for r in rows if r.get("name") == sys.argv[1]), None)
if row is None: sys.exit("no " + sys.argv[1] + " in share inbox list")
for pair in sys.argv[2:]:
    key, value = pair.split("=", 1)
    try: value = json.loads(value)
    except ValueError: pass
    if row.get(key) != value: sys.exit("%s: %s is %r, not %r" % (sys.argv[1], key, row.get(key), value))' "$@"
}
# a_jpeg PATH: a real JPEG (cjpeg from a gradient), or, without libjpeg's tools, the JFIF bytes
# the e2e tests use.
a_jpeg() {
  if command -v cjpeg >/dev/null; then
    python3 -c '
import sys
w, h = 160, 120
pixels = bytes(v for y in range(h) for x in range(w) for v in (x * 255 // w, y * 255 // h, (x ^ y) & 255))
sys.stdout.buffer.write(b"P6 %d %d 255\n" % (w, h) + pixels)' | cjpeg -quality 85 >"$1"
  else
    python3 -c '
import sys
head = bytes([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10]) + b"JFIF" + bytes([0, 1, 1, 0, 0, 1, 0, 1, 0, 0])
open(sys.argv[1], "wb").write(head + bytes((i * 31 + 7) & 255 for i in range(50000)))' "$1"
  fi
}

localsend_to_share() {
  local files=$work/ls-files inbox=$work/ls-a/Documents/Inbox name all=1
  mkdir -p "$files"
  a_jpeg "$files/photo.jpg"
  check "localsend-cli on host B sends a photo to lab-ls on host A (its ask accepted there)" \
    ls_send_accepted photo "$files/photo.jpg"
  check "... localsend-cli reports it sent" ls_reported "$work/ls-photo.out" sent photo.jpg ""
  check "... the photo is in lab-ls's Inbox, byte-identical" cmp -s "$files/photo.jpg" "$inbox/photo.jpg"
  check "... read-only" test -z "$(find "$inbox/photo.jpg" -perm /222)"
  check "... share inbox list --json: protocol localsend, a JPEG, from localsend-cli, unverified" \
    inbox_says "$work/ls-a" photo.jpg protocol=localsend type=public.jpeg sender_verified=false \
    "sender_name=localsend-cli@$(hostname)"

  printf 'first of three\n' >"$files/one.txt"
  python3 -c 'import sys; open(sys.argv[1], "wb").write(bytes(range(256)) * 4096)' "$files/two.bin"
  a_jpeg "$files/three.jpg"
  check "localsend-cli sends three files in one session" \
    ls_send_accepted several "$files/one.txt" "$files/two.bin" "$files/three.jpg"
  for name in one.txt two.bin three.jpg; do
    cmp -s "$files/$name" "$inbox/$name" && inbox_says "$work/ls-a" "$name" protocol=localsend || all=0
  done
  check "... all three are in the Inbox, byte-identical, protocol localsend" test "$all" = 1

  # localsend-cli has no --text: its text message is a lone text/plain file (its receiver shows it).
  printf 'see you at 6, across the veth\n' >"$files/message.txt"
  check "localsend-cli sends a text" ls_send_accepted text "$files/message.txt"
  check "... it is in the Inbox, byte-identical" cmp -s "$files/message.txt" "$inbox/message.txt"
  check "... protocol localsend" inbox_says "$work/ls-a" message.txt protocol=localsend

  # A .png that is an ELF is refused while it streams; localsend-cli exits 0 after a failed
  # upload, so what tells it is its `error` event with the 403.
  cp /bin/true "$files/fake.png"
  ls_send_accepted elf "$files/fake.png" || true
  check "an ELF named .png: localsend-cli is told (HTTP 403 for fake.png)" \
    ls_reported "$work/ls-elf.out" error fake.png "HTTP 403"
  check "... nothing of it in the Inbox or staging" \
    test ! -e "$inbox/fake.png" -a -z "$(ls -A "$work/ls-a/Documents/.share/staging" 2>/dev/null)"
  check "... lab-ls logs the refusal" grep -q "refused fake.png" "$work/daemon-ls.out" "$work/daemon-ls.err"

  # Contacts only: refused at prepare-upload; localsend-cli says so and exits 1.
  "$share" --home "$work/ls-a" receive contacts >>"$work/ls-control.out" 2>&1
  ls_cli "$work/ls-sender" send "$("$hosts" addr share-a)" "$files/one.txt" --json >"$work/ls-contacts.out" 2>&1 && rc=0 || rc=$?
  check "lab-ls in contacts mode: localsend-cli exits 1, 'Transfer rejected by receiver'" \
    bash -c '[ "$0" = 1 ] && grep -q "Transfer rejected by receiver" "$1"' "$rc" "$work/ls-contacts.out"
  "$share" --home "$work/ls-a" receive everyone >>"$work/ls-control.out" 2>&1
}

share_to_localsend() {
  local received=$work/ls-received peer alias found
  # localsend-cli scan announces by multicast and collects the /register answers on its HTTPS
  # port: lab-ls hears it across the veth and registers with it.
  found=$(ls_cli "$work/ls-receiver" scan --timeout 4 --json 2>&1 || true)
  check "localsend-cli scan on host B finds lab-ls at $("$hosts" addr share-a) (lab-ls answered by /register)" \
    grep -q "\"alias\": \"lab-ls\", \"ip\": \"$("$hosts" addr share-a)\"" <<<"$found"
  mkdir -p "$received"
  ls_cli "$work/ls-receiver" receive --output "$received" --json >"$work/ls-receive.out" 2>&1 &
  pids+=($!)
  # It announces every 5 s; lab-ls hears it (and registers with it over HTTPS).
  peer=""
  for _ in $(seq 1 30); do
    peer=$(on share-a "$share" --home "$work/ls-a" peers --json --timeout 1 | python3 -c '
import json, sys
for line in sys.stdin:
    peer = json.loads(line)
    if peer.get("protocol") == "localsend": print(json.dumps(peer)); break')
    [ -n "$peer" ] && break
  done
  check "share peers on host A lists localsend-cli receiving on host B" test -n "$peer"
  registered() { grep -q "\"event\": \"device\", \"alias\": \"lab-ls\", \"ip\": \"$1\"" "$work/ls-receive.out"; }
  for _ in $(seq 1 50); do registered "$("$hosts" addr share-a)" && break; sleep 0.1; done
  check "... lab-ls registered with it (localsend-cli's 'device' event from $("$hosts" addr share-a))" \
    registered "$("$hosts" addr share-a)"
  [ -n "$peer" ] || return 0
  check "... at $("$hosts" addr share-b):53317" python3 -c '
import json, sys
peer = json.loads(sys.argv[1])
assert peer["address"] == sys.argv[2] and peer["port"] == 53317, peer' "$peer" "$("$hosts" addr share-b)"
  check "... marked (LocalSend) in the text listing" \
    bash -c '"$0" exec share-a "$1" --home "$2" peers --timeout 1 | grep >/dev/null "(LocalSend)"' "$hosts" "$share" "$work/ls-a"
  alias=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["name"])' "$peer")

  local files=$work/ls-files
  check "share send photo.jpg two.bin --to '$alias' on host A delivers both" \
    on share-a "$share" --home "$work/ls-a" send "$files/photo.jpg" "$files/two.bin" --to "$alias" --quiet
  check "... both are in localsend-cli's folder, byte-identical" \
    bash -c 'cmp -s "$0/photo.jpg" "$1/photo.jpg" && cmp -s "$0/two.bin" "$1/two.bin"' "$files" "$received"
  check "... its fingerprint is pinned under localsend:$alias" grep -q "localsend:$alias" "$work/ls-a/known_peers.json"
  check "share send --text --to '$alias' delivers a text" \
    on share-a "$share" --home "$work/ls-a" send --text "dinner at 8, over the veth" --to "$alias" --quiet
  # (localsend-cli prints the text before it answers the upload, so it is there once the send ends.)
  check "... localsend-cli shows it as a text" ls_reported "$work/ls-receive.out" text "" "dinner at 8, over the veth"
}

localsend_across_hosts() {
  echo "# LocalSend across the hosts"
  if [ ! -x "$localsend_venv/bin/localsend-cli" ] && ! scripts/localsend/setup-venv.sh "$localsend_venv"; then
    echo "FAIL - localsend-cli could not be installed into $localsend_venv"; failures=$((failures + 1)); return
  fi
  "$hosts" exec share-a "$share" --home "$work/ls-a" daemon --name lab-ls --port 0 --mode everyone \
    --localsend --localsend-multicast "$("$hosts" addr share-a)" >"$work/daemon-ls.out" 2>"$work/daemon-ls.err" &
  pids+=($!)
  local started=""
  for _ in $(seq 1 200); do
    grep -qs "LocalSend: receiving on port 53317" "$work/daemon-ls.out" "$work/daemon-ls.err" && { started=1; break; }
    sleep 0.05
  done
  check "share daemon --localsend on host A receives on 53317, multicast on $("$hosts" addr share-a)" test -n "$started"
  [ -n "$started" ] || return 0
  ip -n share-b route replace 224.0.0.0/4 dev veth-b
  localsend_to_share
  share_to_localsend
}
localsend_across_hosts

if [ "$failures" -ne 0 ]; then
  echo "multihost: $failures check(s) failed; logs:" >&2
  tail -n 20 "$work"/*.err "$work"/*.out >&2 || true
  exit 1
fi
echo "multihost: all checks passed"
