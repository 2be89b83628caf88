#!/usr/bin/env bash
# Builds the manager of the Cluster API in-cluster IPAM provider (sigs.k8s.io/cluster-api-ipam-provider-in-cluster)
# from the Go module proxy, without any other download, into a cache folder outside the repository, and prints
# that folder. The folder holds the binary `ipam-in-cluster-manager` and, in crd/, the provider's CRD bases
# (InClusterIPPool, GlobalInClusterIPPool, InClusterPrefixPool, GlobalInClusterPrefixPool; the manager watches
# all four, so all four must be installed). A second run with the same version reuses the cache at once.
set -euo pipefail
# shellcheck source=hack/lib/lock.sh
source "$(dirname "$0")/lib/lock.sh"

IPAM_VERSION="${IPAM_VERSION:-v1.1.0}"
MODULE=sigs.k8s.io/cluster-api-ipam-provider-in-cluster
CACHE_ROOT="${CAPKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capkit}"
DEST="$CACHE_ROOT/ipam/${IPAM_VERSION}"
BIN=ipam-in-cluster-manager

built() {
  [[ -x "$DEST/$BIN" ]] && compgen -G "$DEST/crd/*.yaml" >/dev/null
}

if built; then
  echo "$DEST"
  exit 0
fi
cache_lock "$DEST"
if built; then # another run may have built it while this one waited for the lock
  echo "$DEST"
  exit 0
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export GOFLAGS="${GOFLAGS:--buildvcs=false}" CGO_ENABLED=0

echo "capkit: building ${MODULE} ${IPAM_VERSION} from the Go module proxy (first run only, about 3 minutes on 2 cores)..." >&2
# The provider's main package is its module root. Its go.mod has no replace directives, so a plain requirement
# resolves the same versions as its own build (Cluster API v1.11.2, controller-runtime v0.21.0).
cat >"$work/go.mod" <<EOF
module capkit.local/ipam-provider

go 1.26

require ${MODULE} ${IPAM_VERSION}
EOF
(
  cd "$work"
  go get "${MODULE}@${IPAM_VERSION}" >/dev/null 2>&1 || go get "${MODULE}@${IPAM_VERSION}" >&2
  # main.go reports k8s.io/client-go's version, not the provider's, so there is nothing to stamp with -X.
  go build -trimpath -ldflags "-s -w" -o "$work/$BIN.bin" "${MODULE}"
  moddir="$(go list -m -f '{{.Dir}}' "${MODULE}")"
  mkdir -p "$work/crd"
  cp "$moddir"/config/crd/bases/*.yaml "$work/crd/"
  chmod u+w "$work"/crd/*.yaml
  rm -rf "$DEST/crd"
  mv "$work/crd" "$DEST/crd"
  tmp="$(tmp_beside "$DEST/$BIN")"
  mv "$work/$BIN.bin" "$tmp"
  mv "$tmp" "$DEST/$BIN"
)

echo "$DEST"
