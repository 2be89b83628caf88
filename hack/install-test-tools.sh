#!/usr/bin/env bash
# Installs the Debian packages the tests use when they are missing: shellcheck (the cloudinit tests check
# rendered scripts with it) and bubblewrap (they run a rendered script as root in a sandbox with it).
set -euo pipefail
missing=()
command -v shellcheck >/dev/null 2>&1 || missing+=(shellcheck)
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
[[ ${#missing[@]} -eq 0 ]] && exit 0
echo "capkit: installing ${missing[*]} with apt-get (used by the cloudinit tests)..." >&2
SUDO=""
[[ "$(id -u)" -ne 0 ]] && SUDO="sudo"
$SUDO apt-get update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
