#!/usr/bin/env bash
# Builds the envtest control plane (kube-apiserver and etcd) from the Go module proxy, without any other
# download, into a cache folder outside the repository, and prints that folder (use it as KUBEBUILDER_ASSETS).
# A second run with the same versions reuses the cache and returns at once.
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-v1.36.3}"
ETCD_VERSION="${ETCD_VERSION:-v3.6.8}"
CACHE_ROOT="${CAPKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capkit}"
DEST="$CACHE_ROOT/envtest/k8s-${K8S_VERSION}-etcd-${ETCD_VERSION}"

if [[ -x "$DEST/kube-apiserver" && -x "$DEST/etcd" ]]; then
  echo "$DEST"
  exit 0
fi

mkdir -p "$DEST"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export GOFLAGS="${GOFLAGS:--buildvcs=false}" CGO_ENABLED=0

if [[ ! -x "$DEST/kube-apiserver" ]]; then
  echo "capkit: building kube-apiserver ${K8S_VERSION} from the Go module proxy (first run only, about 5-10 minutes on 2 cores)..." >&2
  staging=(api apiextensions-apiserver apimachinery apiserver cli-runtime client-go cloud-provider cluster-bootstrap
    code-generator component-base component-helpers controller-manager cri-api cri-client csi-translation-lib
    dynamic-resource-allocation endpointslice externaljwt kms kube-aggregator kube-controller-manager kube-proxy
    kube-scheduler kubectl kubelet metrics mount-utils pod-security-admission sample-apiserver sample-cli-plugin
    sample-controller streaming)
  staging_version="v0${K8S_VERSION#v1}"
  mkdir -p "$work/apiserver"
  {
    echo "module capkit.local/envtest/apiserver"
    echo "go 1.26"
    echo "require k8s.io/kubernetes ${K8S_VERSION}"
    for m in "${staging[@]}"; do echo "replace k8s.io/$m => k8s.io/$m ${staging_version}"; done
  } >"$work/apiserver/go.mod"
  printf 'package main\n\nimport _ "k8s.io/kubernetes/cmd/kube-apiserver"\n' >"$work/apiserver/tools.go"
  minor="${K8S_VERSION#v1.}"; minor="${minor%%.*}"
  (
    cd "$work/apiserver"
    go mod download k8s.io/kubernetes >/dev/null
    go get "k8s.io/kubernetes@${K8S_VERSION}" >/dev/null 2>&1 || true
    go mod tidy -e >/dev/null 2>&1 || true
    go build -trimpath -o "$DEST/kube-apiserver.tmp" \
      -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=${K8S_VERSION} -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=${minor} -X k8s.io/client-go/pkg/version.gitVersion=${K8S_VERSION}" \
      k8s.io/kubernetes/cmd/kube-apiserver
  )
  mv "$DEST/kube-apiserver.tmp" "$DEST/kube-apiserver"
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
    go build -trimpath -ldflags "-s -w" -o "$DEST/etcd.tmp" .
  )
  mv "$DEST/etcd.tmp" "$DEST/etcd"
fi

echo "$DEST"
