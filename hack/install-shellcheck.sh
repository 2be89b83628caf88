#!/usr/bin/env bash
# Installs shellcheck (used by the cloudinit tests) from Debian's packages when it is missing.
set -euo pipefail
command -v shellcheck >/dev/null 2>&1 && exit 0
echo "capkit: installing shellcheck with apt-get (cloudinit tests check rendered scripts with it)..." >&2
SUDO=""
[[ "$(id -u)" -ne 0 ]] && SUDO="sudo"
$SUDO apt-get update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq shellcheck >/dev/null
