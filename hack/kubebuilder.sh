#!/usr/bin/env bash
# Builds the kubebuilder CLI from the Go module proxy, without any other download, into a cache folder outside the
# repository, and prints the binary's path (use it as CAPKIT_KUBEBUILDER: internal/kbplugin's test runs the real
# kubebuilder with capkit's external plugin). A second run with the same version reuses the cache and returns at once.
set -euo pipefail
# shellcheck source=hack/lib/lock.sh
source "$(dirname "$0")/lib/lock.sh"

KUBEBUILDER_VERSION="${KUBEBUILDER_VERSION:-v4.16.0}"
CACHE_ROOT="${CAPKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capkit}"
DEST="$CACHE_ROOT/kubebuilder/${KUBEBUILDER_VERSION}"

if [[ -x "$DEST/kubebuilder" ]]; then
  echo "$DEST/kubebuilder"
  exit 0
fi

cache_lock "$DEST"
# Another run may have built it while this one waited for the lock.
if [[ -x "$DEST/kubebuilder" ]]; then
  echo "$DEST/kubebuilder"
  exit 0
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export GOFLAGS="${GOFLAGS:--buildvcs=false}" CGO_ENABLED=0

echo "capkit: building kubebuilder ${KUBEBUILDER_VERSION} from the Go module proxy (first run only, about a minute)..." >&2
# go install with a version builds in kubebuilder's own module, which stamps the version that it writes to PROJECT.
GOBIN="$work/bin" go install "sigs.k8s.io/kubebuilder/v4@${KUBEBUILDER_VERSION}"
tmp="$(tmp_beside "$DEST/kubebuilder")"
mv "$work/bin/kubebuilder" "$tmp"
mv "$tmp" "$DEST/kubebuilder"

echo "$DEST/kubebuilder"
