#!/usr/bin/env bash
# Installs localsend-cli (a LocalSend v2 client and receiver from PyPI that nobody here wrote)
# into a virtual environment, for the interoperability tests in Tests/LocalSendTests.
# localsend-cli 0.1.1 does not declare its dependencies; they are installed beside it.
# Usage: scripts/localsend/setup-venv.sh [VENV_DIR]
#   (default: $SHARE_LOCALSEND_VENV, else ${XDG_CACHE_HOME:-~/.cache}/share/localsend-venv,
#   shared by every clone; idempotent: an existing working venv is left as it is)
set -euo pipefail
venv="${1:-${SHARE_LOCALSEND_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/share/localsend-venv}}"
mkdir -p "$(dirname "$venv")"
if [ -x "$venv/bin/localsend-cli" ] && "$venv/bin/python" -c 'import cryptography, requests' 2>/dev/null; then
  exit 0
fi
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check \
  'localsend-cli==0.1.1' 'cryptography>=42' 'requests>=2.31'
