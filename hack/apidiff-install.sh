#!/usr/bin/env bash
# hack/apidiff-install.sh VERSION DEST builds golang.org/x/exp/cmd/apidiff at the golang.org/x/exp VERSION into the
# file DEST (the Makefile's $(APIDIFF), bin/apidiff-VERSION).
#
# golang.org/x/exp has no tagged versions, only pseudo-versions, and `go install MODULE/cmd@VERSION` of a
# pseudo-version reads the module's version list for deprecations, which the module proxy may refuse. So the
# binary is built in a throwaway module that requires exactly VERSION; `go build -mod=mod` resolves the module's
# own requirements (minimal version selection from its go.mod, the same build list as go install) and records
# go.sum from the checksum database.
set -euo pipefail

if [[ $# -ne 2 || ! "$1" =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
  echo "usage: hack/apidiff-install.sh VERSION DEST (VERSION: a golang.org/x/exp version, like v0.0.0-20250506013437-ce4c2cf36ca6)" >&2
  exit 2
fi
version="$1" dest="$2"
mkdir -p "$(dirname "$dest")"
dest="$(cd "$(dirname "$dest")" && pwd)/$(basename "$dest")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

printf 'module capkit.local/apidiff-tool\n\ngo 1.26.0\n\nrequire golang.org/x/exp %s\n' "$version" >"$work/go.mod"
tmp="$(mktemp "$dest.tmp.XXXXXX")"
if ! (cd "$work" && GOWORK=off GOFLAGS="${GOFLAGS:--buildvcs=false}" go build -mod=mod -o "$tmp" golang.org/x/exp/cmd/apidiff); then
  rm -f "$tmp"
  echo "capkit: cannot build golang.org/x/exp/cmd/apidiff $version" >&2
  exit 1
fi
chmod 0755 "$tmp"
mv -f "$tmp" "$dest" # a reader never sees half a binary; two installs at once both succeed
