#!/usr/bin/env bash
# Builds the Cluster API Provider vSphere (CAPV) manager from the Go module proxy, without any other download,
# into a cache folder outside the repository, and prints the binary's path. CAPV is built with its own go.mod
# (its replace pins Cluster API v1.11.1), as its release does, in a writable copy of the downloaded module. A
# second run with the same version reuses the cache at once. CAPV's CRDs, as the module publishes them, go into
# crd/ beside the binary. Used by the vSphere side-by-side work (issue 42);
# not part of make test.
set -euo pipefail
# shellcheck source=hack/lib/lock.sh
source "$(dirname "$0")/lib/lock.sh"

CAPV_VERSION="${CAPV_VERSION:-v1.14.0}"
CAPV_MODULE=sigs.k8s.io/cluster-api-provider-vsphere
CACHE_ROOT="${CAPKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capkit}"
DEST="$CACHE_ROOT/capv/${CAPV_VERSION}"

if [[ -x "$DEST/manager" && -d "$DEST/crd" ]]; then
  echo "$DEST/manager"
  exit 0
fi
cache_lock "$DEST"
# go mod download -json prints the module's folder in the module cache as "Dir"; the cache is read-only, so the
# build runs in a copy.
dir="$(go mod download -json "${CAPV_MODULE}@${CAPV_VERSION}" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
if [[ -z "$dir" || ! -f "$dir/go.mod" ]]; then
  echo "capkit: go mod download did not give a folder for ${CAPV_MODULE}@${CAPV_VERSION}" >&2
  exit 1
fi
if [[ ! -d "$DEST/crd" ]]; then
  crd="$(mktemp -d "$DEST/crd.XXXXXX")"
  cp "$dir"/config/default/crd/bases/*.yaml "$crd/"
  chmod u+w "$crd"/*.yaml
  mv "$crd" "$DEST/crd"
fi
# Another run may have built it while this one waited for the lock.
if [[ -x "$DEST/manager" ]]; then
  echo "$DEST/manager"
  exit 0
fi
work="$(mktemp -d)"
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT

echo "capkit: building CAPV ${CAPV_VERSION} manager from the Go module proxy (first run only, about 3 minutes on 2 cores)..." >&2
cp -R "$dir" "$work/capv"
chmod -R u+w "$work/capv"
ldflags="-s -w -X sigs.k8s.io/cluster-api-provider-vsphere/pkg/version.gitVersion=${CAPV_VERSION} -X sigs.k8s.io/cluster-api-provider-vsphere/pkg/version.gitTreeState=clean"
(
  cd "$work/capv"
  # The module's go.mod and go.sum as published; -mod=mod lets go fill in go.sum lines it lacks.
  GOFLAGS="-mod=mod -buildvcs=false" CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$work/manager.bin" .
)
tmp="$(tmp_beside "$DEST/manager")"
mv "$work/manager.bin" "$tmp"
mv "$tmp" "$DEST/manager"
echo "$DEST/manager"
