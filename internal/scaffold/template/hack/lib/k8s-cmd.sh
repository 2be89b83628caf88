#!/usr/bin/env bash
# build_k8s_cmd CMD DEST VERSION builds k8s.io/kubernetes/cmd/CMD at VERSION (e.g. v1.36.3) from the Go module
# proxy into DEST, with the version stamped as the release build would. Sourced by the hack/ scripts that
# build kube-apiserver and kube-scheduler.
build_k8s_cmd() {
  local cmd="$1" dest="$2" version="$3"
  local staging=(api apiextensions-apiserver apimachinery apiserver cli-runtime client-go cloud-provider cluster-bootstrap
    code-generator component-base component-helpers controller-manager cri-api cri-client csi-translation-lib
    dynamic-resource-allocation endpointslice externaljwt kms kube-aggregator kube-controller-manager kube-proxy
    kube-scheduler kubectl kubelet metrics mount-utils pod-security-admission sample-apiserver sample-cli-plugin
    sample-controller streaming)
  local staging_version="v0${version#v1}" minor="${version#v1.}" dir
  minor="${minor%%.*}"
  dir="$(mktemp -d)"
  {
    echo "module capkit.local/k8s/${cmd}"
    echo "go 1.26"
    echo "require k8s.io/kubernetes ${version}"
    for m in "${staging[@]}"; do echo "replace k8s.io/$m => k8s.io/$m ${staging_version}"; done
  } >"$dir/go.mod"
  printf 'package main\n\nimport _ "k8s.io/kubernetes/cmd/%s"\n' "$cmd" >"$dir/tools.go"
  (
    cd "$dir" || exit 1
    go mod download k8s.io/kubernetes >/dev/null
    go get "k8s.io/kubernetes@${version}" >/dev/null 2>&1 || true
    go mod tidy -e >/dev/null 2>&1 || true
    go build -trimpath -o "$dir/$cmd.bin" \
      -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=${version} -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=${minor} -X k8s.io/client-go/pkg/version.gitVersion=${version}" \
      "k8s.io/kubernetes/cmd/${cmd}"
  )
  local tmp
  tmp="$(mktemp "$dest.tmp.XXXXXX")"
  mv "$dir/$cmd.bin" "$tmp"
  rm -rf "$dir"
  mv "$tmp" "$dest"
}
