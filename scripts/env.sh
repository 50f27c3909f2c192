# Sourced by the scripts: puts the Swift toolchain on PATH when it lives in /opt/swift.
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
  export PATH="/opt/swift/usr/bin:$PATH"
fi

# share_daemon_port FILE [SECONDS]: the port of a daemon whose standard output goes to FILE, once
# it says `listening on port N` (waiting up to SECONDS, default 30: a loaded machine); fails,
# printing nothing, when it does not say so in time.
share_daemon_port() {
  local file=$1 tries=$((${2:-30} * 20)) port
  for _ in $(seq 1 "$tries"); do
    port=$(sed -n 's/^listening on port //p' "$file" 2>/dev/null)
    [ -n "$port" ] && { echo "$port"; return 0; }
    sleep 0.05
  done
  return 1
}
