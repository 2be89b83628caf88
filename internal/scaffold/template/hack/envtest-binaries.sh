#!/usr/bin/env bash
# Builds the envtest control plane (kube-apiserver and etcd) from the Go module proxy, without any other
# download, into a cache folder outside the repository, and prints that folder (use it as KUBEBUILDER_ASSETS).
# A second run with the same versions reuses the cache and returns at once.
set -euo pipefail
# shellcheck source=hack/lib/k8s-cmd.sh
source "$(dirname "$0")/lib/k8s-cmd.sh"
# shellcheck source=hack/lib/lock.sh
source "$(dirname "$0")/lib/lock.sh"

K8S_VERSION="${K8S_VERSION:-v1.36.3}"
ETCD_VERSION="${ETCD_VERSION:-v3.6.8}"
CACHE_ROOT="${CAPKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capkit}"
DEST="$CACHE_ROOT/envtest/k8s-${K8S_VERSION}-etcd-${ETCD_VERSION}"

if [[ -x "$DEST/kube-apiserver" && -x "$DEST/etcd" ]]; then
  echo "$DEST"
  exit 0
fi

cache_lock "$DEST"
# Another run may have built them while this one waited for the lock.
if [[ -x "$DEST/kube-apiserver" && -x "$DEST/etcd" ]]; then
  echo "$DEST"
  exit 0
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export GOFLAGS="${GOFLAGS:--buildvcs=false}" CGO_ENABLED=0

if [[ ! -x "$DEST/kube-apiserver" ]]; then
  echo "capkit: building kube-apiserver ${K8S_VERSION} from the Go module proxy (first run only, about 5-10 minutes on 2 cores)..." >&2
  build_k8s_cmd kube-apiserver "$DEST/kube-apiserver" "${K8S_VERSION}"
fi

if [[ ! -x "$DEST/etcd" ]]; then
  echo "capkit: building etcd ${ETCD_VERSION} from the Go module proxy (first run only, about a minute)..." >&2
  mkdir -p "$work/etcd"
  printf 'module capkit.local/envtest/etcd\n\ngo 1.26\n' >"$work/etcd/go.mod"
  printf 'package main\n\nimport (\n\t"os"\n\n\t"go.etcd.io/etcd/server/v3/etcdmain"\n)\n\nfunc main() { etcdmain.Main(os.Args) }\n' >"$work/etcd/main.go"
  (
    cd "$work/etcd"
    go get "go.etcd.io/etcd/server/v3@${ETCD_VERSION}" >/dev/null 2>&1
    go mod tidy >/dev/null 2>&1
    go build -trimpath -ldflags "-s -w" -o "$work/etcd.bin" .
  )
  tmp="$(tmp_beside "$DEST/etcd")"
  mv "$work/etcd.bin" "$tmp"
  mv "$tmp" "$DEST/etcd"
fi

echo "$DEST"
