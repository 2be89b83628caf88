#!/usr/bin/env bash
# Builds the Cluster API core manager and the kubeadm bootstrap manager from the Go module proxy, without any
# other download, into a cache folder outside the repository, and prints that folder (use it as
# CAPKIT_CAPI_BIN for the tests in test/). A second run with the same version reuses the cache at once.
set -euo pipefail
# shellcheck source=hack/lib/lock.sh
source "$(dirname "$0")/lib/lock.sh"

CAPI_VERSION="${CAPI_VERSION:-v1.14.2}"
CACHE_ROOT="${CAPKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capkit}"
DEST="$CACHE_ROOT/capi/${CAPI_VERSION}"

# binary name in DEST -> package in the sigs.k8s.io/cluster-api module.
declare -A PACKAGES=(
  [cluster-api-manager]=sigs.k8s.io/cluster-api/core
  [kubeadm-bootstrap-manager]=sigs.k8s.io/cluster-api/bootstrap/kubeadm
)

# exit_if_built prints DEST and exits when every binary is there; otherwise it lists the others in missing.
exit_if_built() {
  missing=()
  for bin in "${!PACKAGES[@]}"; do
    [[ -x "$DEST/$bin" ]] || missing+=("$bin")
  done
  if [[ ${#missing[@]} -eq 0 ]]; then
    echo "$DEST"
    exit 0
  fi
}

exit_if_built
cache_lock "$DEST"
exit_if_built # another run may have built them while this one waited for the lock
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export GOFLAGS="${GOFLAGS:--buildvcs=false}" CGO_ENABLED=0

echo "capkit: building Cluster API ${CAPI_VERSION} ${missing[*]} from the Go module proxy (first run only, about 5 minutes on 2 cores)..." >&2
# sigs.k8s.io/cluster-api requires its api module at a placeholder version (it replaces it with ./api in its
# own repository), so the build module pins the api module to the same release.
cat >"$work/go.mod" <<EOF
module capkit.local/capi-managers

go 1.26

require sigs.k8s.io/cluster-api ${CAPI_VERSION}

replace sigs.k8s.io/cluster-api/api => sigs.k8s.io/cluster-api/api ${CAPI_VERSION}
EOF
minor="${CAPI_VERSION#v1.}"; minor="${minor%%.*}"
ldflags="-s -w -X sigs.k8s.io/cluster-api/version.gitVersion=${CAPI_VERSION} -X sigs.k8s.io/cluster-api/version.gitMajor=1 -X sigs.k8s.io/cluster-api/version.gitMinor=${minor} -X sigs.k8s.io/cluster-api/version.gitTreeState=clean"
(
  cd "$work"
  pkgs=()
  for bin in "${missing[@]}"; do pkgs+=("${PACKAGES[$bin]}@${CAPI_VERSION}"); done
  go get "${pkgs[@]}" >/dev/null 2>&1 || go get "${pkgs[@]}" >&2
  for bin in "${missing[@]}"; do
    go build -trimpath -ldflags "$ldflags" -o "$work/$bin.bin" "${PACKAGES[$bin]}"
    tmp="$(tmp_beside "$DEST/$bin")"
    mv "$work/$bin.bin" "$tmp"
    mv "$tmp" "$DEST/$bin"
  done
)

echo "$DEST"
