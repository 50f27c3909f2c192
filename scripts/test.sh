#!/usr/bin/env bash
# Sets up everything the tests need (packages, build) and runs the whole test suite:
# unit tests, in-process two-peer tests, and end-to-end tests of the built binary.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh debug >/dev/null
. scripts/env.sh
swift build --build-tests 2>&1 | { grep -v 'prohibited flag' || true; }
swift test --skip-build "$@" 2>&1 | { grep -v 'prohibited flag' || true; }
