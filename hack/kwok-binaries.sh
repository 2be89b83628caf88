#!/usr/bin/env bash
# Builds what a test needs to run Pods without a container runtime: the real kube-scheduler (from the same
# Kubernetes module as envtest's kube-apiserver) and KWOK's kwok controller, which plays the kubelet of fake
# nodes, with KWOK's stage definitions (stages.yaml). All come from the Go module proxy into a cache folder
# outside the repository; the folder is printed.
# A second run with the same versions reuses the cache and returns at once.
set -euo pipefail
# shellcheck source=hack/lib/k8s-cmd.sh
source "$(dirname "$0")/lib/k8s-cmd.sh"
# shellcheck source=hack/lib/lock.sh
source "$(dirname "$0")/lib/lock.sh"

K8S_VERSION="${K8S_VERSION:-v1.36.3}"
KWOK_VERSION="${KWOK_VERSION:-v0.8.0}"
CACHE_ROOT="${CAPKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capkit}"
DEST="$CACHE_ROOT/kwok/k8s-${K8S_VERSION}-kwok-${KWOK_VERSION}"

if [[ -x "$DEST/kube-scheduler" && -x "$DEST/kwok" && -s "$DEST/stages.yaml" ]]; then
  echo "$DEST"
  exit 0
fi

cache_lock "$DEST"
# Another run may have built them while this one waited for the lock.
if [[ -x "$DEST/kube-scheduler" && -x "$DEST/kwok" && -s "$DEST/stages.yaml" ]]; then
  echo "$DEST"
  exit 0
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export GOFLAGS="${GOFLAGS:--buildvcs=false}" CGO_ENABLED=0

if [[ ! -x "$DEST/kwok" ]]; then
  echo "capkit: building kwok ${KWOK_VERSION} from the Go module proxy (first run only, about a minute)..." >&2
  GOBIN="$work/kwok" go install "sigs.k8s.io/kwok/cmd/kwok@${KWOK_VERSION}"
  tmp="$(tmp_beside "$DEST/kwok")"
  mv "$work/kwok/kwok" "$tmp"
  mv "$tmp" "$DEST/kwok"
fi

if [[ ! -s "$DEST/stages.yaml" ]]; then
  # KWOK's own stages (from its module): nodes become Ready and keep a heartbeat; pods become Running with an
  # IP, complete, and their deletions finish.
  go mod download "sigs.k8s.io/kwok@${KWOK_VERSION}" >/dev/null 2>&1 || (cd "$work" && go mod init capkit.local/kwok >/dev/null 2>&1 && go mod download "sigs.k8s.io/kwok@${KWOK_VERSION}")
  stages="$(go env GOMODCACHE)/sigs.k8s.io/kwok@${KWOK_VERSION}/kustomize/stage"
  for f in node/fast/node-initialize.yaml node/heartbeat/node-heartbeat.yaml pod/fast/pod-ready.yaml \
    pod/fast/pod-complete.yaml pod/fast/pod-delete.yaml; do
    cat "$stages/$f"
    echo "---"
  done >"$work/stages.yaml"
  tmp="$(tmp_beside "$DEST/stages.yaml")"
  mv "$work/stages.yaml" "$tmp"
  mv "$tmp" "$DEST/stages.yaml"
fi

if [[ ! -x "$DEST/kube-scheduler" ]]; then
  echo "capkit: building kube-scheduler ${K8S_VERSION} from the Go module proxy (first run only, a few minutes)..." >&2
  build_k8s_cmd kube-scheduler "$DEST/kube-scheduler" "${K8S_VERSION}"
fi

echo "$DEST"
