#!/usr/bin/env bash
# Tests the desktop integration without a desktop: contrib/desktop/share-send-gui sends real
# files to a real share daemon (a scratch home, advertised through Avahi on loopback), with fake
# zenity, kdialog, x-terminal-emulator and notify-send on PATH that pick the test's own peer and
# record what the user would have seen. Also validates the .desktop file.
#   scripts/desktop-test.sh      exit 0 when every case passes
# Other share daemons on the same Avahi may be listed too; the fakes pick this test's by name.
set -euo pipefail
SHARE_SCRIPT=desktop-test
. "$(dirname "$0")/packaging/common.sh"

share_ensure_packages jq:jq desktop-file-validate:desktop-file-utils
"$SHARE_REPO/scripts/avahi-up.sh"
share=$(share_find_binary)
helper="$SHARE_REPO/contrib/desktop/share-send-gui"
work=$(mktemp -d)
failures=0
daemon_pid=""
cleanup() {
  [ -n "$daemon_pid" ] && share_stop_pid "$daemon_pid" share
  if [ "$failures" = 0 ] && [ -z "${SHARE_TEST_KEEP:-}" ]; then rm -rf "$work"; else share_say "kept for inspection: $work"; fi
}
trap cleanup EXIT


fail() { share_say "FAIL: $*"; failures=$((failures + 1)); }
check() { # check DESCRIPTION CMD...: a passing command or a failure named after DESCRIPTION
  local description=$1
  shift
  if "$@"; then share_say "ok: $description"; else fail "$description"; fi
}

desktop-file-validate "$SHARE_REPO/contrib/desktop/share-send.desktop" || fail "share-send.desktop does not validate"
grep -qx 'MimeType=application/octet-stream;inode/directory;' "$SHARE_REPO/contrib/desktop/share-send.desktop" ||
  fail "share-send.desktop: MimeType= is not application/octet-stream;inode/directory;"

# --- a receiver that trusts the sender, and the files to send ---
name="pkg-desktop-$$"
export SHARE_HOME="$work/sender"
receiver="$work/receiver"
sender_id=$("$share" id | sed -n 's/^ID: *//p')
"$share" --home "$receiver" trust add "$sender_id" --name desktop-test-sender >/dev/null
"$share" --home "$receiver" daemon --port 0 --host 127.0.0.1 --name "$name" --mode contacts \
  >"$work/daemon.out" 2>"$work/daemon.err" &
daemon_pid=$!
advertised() { "$share" peers --json --timeout 1 2>/dev/null | jq -e --arg n "$name" 'select(.name == $n)' >/dev/null; }
share_wait_until 150 share_running_or_gone "$daemon_pid" advertised && advertised ||
  share_die "the test daemon $name was not seen through Avahi in 15 s: $(cat "$work/daemon.err")"

mkdir -p "$work/files/folder"
echo "notes" >"$work/files/notes.txt"
printf '#!/bin/sh\necho hi\n' >"$work/files/run.sh"
echo "markup" >"$work/files/a<b>&c.txt"
echo "in a folder" >"$work/files/folder/inside.md"

# --- fakes: a PATH with only what the helper may use, so real dialogs never open ---
fakes="$work/bin"
mkdir -p "$fakes"
for tool in bash env readlink dirname basename jq cat mktemp tail rm; do ln -s "$(command -v "$tool")" "$fakes/$tool"; done
export FAKE_LOG="$work/log"
mkdir -p "$FAKE_LOG"
cat >"$fakes/notify-send" <<'EOF'
#!/bin/bash
# Records each notification as one line of [arguments]; --print-id prints an ID (the replaced one).
{ printf 'notify'; printf ' [%s]' "$@"; printf '\n'; } >>"$FAKE_LOG/notify.log"
id=0
while read -r _; do id=$((id + 1)); done <"$FAKE_LOG/notify.log"
for a; do case "$a" in --replace-id=*) id=${a#--replace-id=} ;; esac; done
for a; do [ "$a" = --print-id ] && echo "$id"; done
exit 0
EOF
cat >"$fakes/zenity" <<'EOF'
#!/bin/bash
# A zenity --list that picks the row whose first column is $FAKE_PICK (Cancel when none is).
# Rows are Device, Contact, ID (short), --to value: a short ID that is not the start of the full
# one means the columns were shifted.
printf '%s\n' "$*" >>"$FAKE_LOG/zenity.log"
while [ $# -gt 0 ] && [ "$1" != -- ]; do shift; done
shift
while [ $# -ge 4 ]; do
  [ "$3" = "${4:0:12}" ] || { echo "fake zenity: row [$1][$2][$3][$4]: columns shifted" >&2; exit 7; }
  [ "$1" = "$FAKE_PICK" ] && { printf '%s\n' "$4"; exit 0; }
  shift 4
done
exit 1
EOF
cat >"$fakes/kdialog" <<'EOF'
#!/bin/bash
# A kdialog --radiolist that picks the entry whose label starts with $FAKE_PICK. Entries are
# TAG (the --to value), "NAME [(contact)] · SHORT-ID", on|off.
printf '%s\n' "$*" >>"$FAKE_LOG/kdialog.log"
while [ $# -gt 0 ] && [ "$1" != -- ]; do shift; done
shift
while [ $# -ge 3 ]; do
  [ "${2##* · }" = "${1:0:12}" ] || { echo "fake kdialog: entry [$1][$2]: no short ID" >&2; exit 7; }
  case "$2" in "$FAKE_PICK "*) printf '%s\n' "$1"; exit 0 ;; esac
  shift 3
done
exit 1
EOF
cat >"$fakes/x-terminal-emulator" <<'EOF'
#!/bin/bash
printf '[%s]' "$@" >"$FAKE_LOG/terminal.log"
EOF
chmod +x "$fakes"/*
ln -s "$share" "$fakes/share"
gui_env=(env -i HOME="$work/sender-home" PATH="$fakes" DISPLAY=:99 SHARE_HOME="$SHARE_HOME" FAKE_LOG="$FAKE_LOG")

inbox_count() { "$share" --home "$receiver" inbox list --json | grep -c . || true; }
notified() { grep -F -- "$1" "$FAKE_LOG/notify.log" >/dev/null; }
runs=0
run_helper() { # run_helper EXPECTED_STATUS ENV... -- ARGS...: runs the helper, checks its status
  local expected=$1 status=0 envs=()
  shift
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  : >"$FAKE_LOG/notify.log"
  (cd "$work/files" && "${gui_env[@]}" "${envs[@]}" "$helper" "$@") >"$work/helper.out" 2>"$work/helper.err" || status=$?
  runs=$((runs + 1))
  cp "$FAKE_LOG/notify.log" "$FAKE_LOG/notify.$runs.log"
  [ "$status" = "$expected" ] || { fail "exit $status, expected $expected; stderr: $(cat "$work/helper.err")"; return 1; }
}

# 1. zenity picks the peer; one item refused (a script), two stored, a name with markup.
before=$(inbox_count)
if run_helper 3 FAKE_PICK="$name" -- notes.txt run.sh "$work/files/a<b>&c.txt"; then
  check "zenity listed the test peer" grep -qF -- "$name" "$FAKE_LOG/zenity.log"
  check "two items arrived in the receiver's Inbox" [ "$(inbox_count)" = $((before + 2)) ]
  check "progress notification (a bubble with a percentage, replaced in place)" \
    bash -c 'grep -F "[Sending to '"$name"']" "$FAKE_LOG/notify.log" | grep >/dev/null -- "--hint=int:value:" &&
      grep -q -- "--replace-id=1" "$FAKE_LOG/notify.log"'
  check "result notification: 2 of 3 stored" notified "[Partly sent to $name: 2 of 3 stored]"
  check "the refusal is named with its reason" bash -c 'grep -E "refused run\.sh: .*(script|executable)" "$FAKE_LOG/notify.log" >/dev/null'
  check "names are escaped for notification markup" notified "a&lt;b&gt;&amp;c.txt"
fi

# 2. kdialog picks the peer; the only item is refused: "Nothing stored", exit 4.
before=$(inbox_count)
if run_helper 4 FAKE_PICK="$name" SHARE_SEND_GUI_CHOOSER=kdialog -- run.sh; then
  check "kdialog listed the test peer" grep -qF -- "$name" "$FAKE_LOG/kdialog.log"
  check "nothing arrived" [ "$(inbox_count)" = "$before" ]
  check "result notification: nothing stored, with the reason" \
    bash -c 'grep -F "[Nothing stored on '"$name"']" "$FAKE_LOG/notify.log" | grep >/dev/null "refused run.sh"'
fi

# 3. The dialog is cancelled: nothing is sent, exit 1, no "Sending" notification.
before=$(inbox_count)
if run_helper 1 FAKE_PICK=nobody-has-this-name -- notes.txt; then
  check "cancelled: nothing arrived" [ "$(inbox_count)" = "$before" ]
  check "cancelled: no sending notification" bash -c '! grep -q "Sending to" "$FAKE_LOG/notify.log"'
fi

# 4. As a Nautilus script: a symlink in the scripts folder, relative names, share found beside
#    the helper's installed place (PREFIX/lib/share/share-send-gui -> PREFIX/bin/share).
prefix="$work/prefix"
mkdir -p "$prefix/bin" "$prefix/lib/share" "$work/nautilus-scripts"
cp "$helper" "$prefix/lib/share/share-send-gui"
ln -s "$share" "$prefix/bin/share"
rm "$fakes/share"
ln -s "$prefix/lib/share/share-send-gui" "$work/nautilus-scripts/Send to nearby device"
helper="$work/nautilus-scripts/Send to nearby device"
before=$(inbox_count)
if run_helper 0 FAKE_PICK="$name" -- folder notes.txt; then
  check "Nautilus script: a folder and a file arrived" [ "$(inbox_count)" = $((before + 2)) ]
  check "Nautilus script: result notification" notified "[Sent to $name]"
fi

# 5. No zenity or kdialog, not on a terminal: the chooser opens in x-terminal-emulator.
rm "$fakes/zenity" "$fakes/kdialog"
if run_helper 0 -- notes.txt; then
  check "a terminal emulator is started with the terminal chooser" \
    grep -qF "[-e][env][SHARE_SEND_GUI_CHOOSER=terminal][SHARE_SEND_GUI_HOLD=1][$prefix/lib/share/share-send-gui][notes.txt]" "$FAKE_LOG/terminal.log"
fi

# 6. The terminal chooser: a numbered list, the number of the test peer typed in.
rm "$fakes/x-terminal-emulator"
mkfifo "$work/answers"
before=$(inbox_count)
(cd "$work/files" && "${gui_env[@]}" SHARE_SEND_GUI_CHOOSER=terminal "$helper" notes.txt <"$work/answers" \
  >"$work/helper.out" 2>"$work/helper.err") &
terminal_pid=$!
exec 4>"$work/answers"
prompted() { grep -q "to which device?" "$work/helper.err"; }
if share_wait_until 100 prompted; then
  number=$(grep -F -- "  $name  " "$work/helper.err" | awk '{print $1}' | awk 'NR == 1')
  echo "$number" >&4
fi
exec 4>&-
status=0
wait "$terminal_pid" || status=$?
check "terminal chooser: the peer was listed and chosen (exit $status)" [ "$status" = 0 ]
check "terminal chooser: the file arrived" [ "$(inbox_count)" = $((before + 1)) ]

# 7. Nothing to ask with: no dialog, no terminal emulator, not on a terminal.
if run_helper 1 -- notes.txt; then
  check "no chooser: says what to install" grep -q "install zenity or kdialog" "$work/helper.err"
fi

# 8. share peers fails (here: a share that cannot reach Avahi): its error is shown, nothing sent.
printf '#!/bin/bash\necho "Error: Avahi is not running (avahi-daemon)." >&2\nexit 1\n' >"$work/broken-share"
chmod +x "$work/broken-share"
if run_helper 1 SHARE_BIN="$work/broken-share" SHARE_SEND_GUI_CHOOSER=terminal -- notes.txt; then
  check "share peers failing: its error is in the notification" \
    notified "[could not look for nearby devices: Error: Avahi is not running (avahi-daemon).]"
fi

[ "$failures" = 0 ] || share_die "$failures check(s) failed (daemon log: $(tail -5 "$work/daemon.err"))"
share_say "ok: all cases passed"
