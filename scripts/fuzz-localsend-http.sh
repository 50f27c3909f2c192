#!/usr/bin/env bash
# Builds the LocalSend HTTP fuzzer (libFuzzer + AddressSanitizer) from the current sources of
# Sources/LocalSend/HTTP and Fuzz/LocalSendHTTP, and runs it.
#
#   scripts/fuzz-localsend-http.sh [SECONDS]      default 60
#
# Starts from the seeds in Fuzz/LocalSendHTTP/corpus (read only); what it discovers goes to
# .build/fuzz-localsend-http/corpus, kept between runs. A crash or violated property exits
# non-zero with the input saved under .build/fuzz-localsend-http/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
seconds="${1:-60}"
out=.build/fuzz-localsend-http
mkdir -p "$out/corpus" "$out/artifacts"
swiftc -sanitize=fuzzer,address -parse-as-library -O -gline-tables-only -swift-version 6 \
  Sources/LocalSend/HTTP/*.swift Fuzz/LocalSendHTTP/*.swift -o "$out/fuzzer" 2>&1 \
  | grep -v -e 'Cannot export local symbol' -e 'prohibited flag' || true
[ -x "$out/fuzzer" ] || { echo "build failed" >&2; exit 1; }
# Without this a crash spends seconds in Swift's backtracer before libFuzzer saves the input.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
"$out/fuzzer" -max_total_time="$seconds" -max_len=4096 -artifact_prefix="$out/artifacts/" \
  "$out/corpus" Fuzz/LocalSendHTTP/corpus
