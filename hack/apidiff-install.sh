#!/usr/bin/env bash
# hack/apidiff-install.sh VERSION DEST builds github.com/joelanford/go-apidiff at VERSION into the file DEST
# (the Makefile's $(GO_APIDIFF), bin/go-apidiff-VERSION).
#
# `go install github.com/joelanford/go-apidiff@VERSION`, the way the Makefile installs controller-gen, fails here:
# go install looks up the module's deprecation in its version list, and the Go module proxy refuses that list for
# this module (403) while it serves each version. So the binary is built in a throwaway module that requires
# exactly VERSION; `go build -mod=mod` resolves go-apidiff's own requirements (minimal version selection from its
# go.mod, the same build list as go install) and records go.sum from the checksum database.
set -euo pipefail

if [[ $# -ne 2 || ! "$1" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
  echo "usage: hack/apidiff-install.sh VERSION DEST (VERSION like v0.8.3)" >&2
  exit 2
fi
version="$1" dest="$2"
mkdir -p "$(dirname "$dest")"
dest="$(cd "$(dirname "$dest")" && pwd)/$(basename "$dest")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

printf 'module capkit.local/apidiff-tool\n\ngo 1.26.0\n\nrequire github.com/joelanford/go-apidiff %s\n' "$version" >"$work/go.mod"
tmp="$(mktemp "$dest.tmp.XXXXXX")"
if ! (cd "$work" && GOWORK=off GOFLAGS="${GOFLAGS:--buildvcs=false}" go build -mod=mod -o "$tmp" github.com/joelanford/go-apidiff); then
  rm -f "$tmp"
  echo "capkit: cannot build go-apidiff $version" >&2
  exit 1
fi
chmod 0755 "$tmp"
mv -f "$tmp" "$dest" # a reader never sees half a binary; two installs at once both succeed
