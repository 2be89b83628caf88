#!/usr/bin/env bash
# hack/release-oldest.sh [--build-only] [REPO] proves the oldest versions docs/compatibility.md claims for the root
# module: it compiles every package of the root module (examples included; the nested test/ module is not part of
# it) with exactly the oldest claimed controller-runtime and k8s.io versions, pinned below. It compiles with
# go list -export ./..., which is go build ./... without linking the module's 13 commands: the compiler's whole
# check at a fraction of the time (linking them took 30 s of CPU on every run).
#
#   1. The claim holds for a provider only if capkit's go.mod requires no newer version: Go's minimal version
#      selection lifts a provider to what capkit's go.mod requires. So the script first fails when the root module
#      selects a newer controller-runtime or k8s.io than the oldest claimed (skipped with --build-only, which is for
#      trying an older line: CAPKIT_OLDEST_CONTROLLER_RUNTIME=v0.23.3 CAPKIT_OLDEST_K8S=v0.35.10 hack/release-oldest.sh
#      --build-only).
#   2. It copies the root module's files (tracked and untracked ones that .gitignore does not exclude, without test/)
#      into a fixed folder ($CAPKIT_CACHE/release-oldest, i.e. ~/.cache/capkit/release-oldest, so that the Go build
#      cache keeps its packages between runs), sets the pinned versions there with go get (downgrading what they
#      need), checks that they are the selected ones, and compiles every package there. REPO is only read.
#
# With the claimed versions equal to what go.mod requires (capkit v0.1.0: controller-runtime v0.24.1, k8s.io
# v0.36.6), step 2 builds what go.mod selects: the script then guards the claim (a go.mod bump past the claimed line
# fails step 1 until docs/compatibility.md and the pins below move with it).
set -euo pipefail

# The oldest versions docs/compatibility.md claims; change them together with that file.
CONTROLLER_RUNTIME="${CAPKIT_OLDEST_CONTROLLER_RUNTIME:-v0.24.1}"
K8S="${CAPKIT_OLDEST_K8S:-v0.36.6}"
K8S_MODULES=(k8s.io/api k8s.io/apimachinery k8s.io/client-go k8s.io/apiextensions-apiserver)

here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=hack/lib/lock.sh
source "$here/lib/lock.sh"

build_only=false
if [[ "${1:-}" == "--build-only" ]]; then
  build_only=true
  shift
fi
repo="$(cd "${1:-$here/..}" && pwd)"
[[ -f "$repo/go.mod" ]] || {
  echo "release-oldest: no go.mod in $repo" >&2
  exit 2
}
export GOWORK=off GOFLAGS="${GOFLAGS:--buildvcs=false}"

# newer A B: A is a newer semantic version than B.
newer() { [[ "$1" != "$2" && "$(printf '%s\n%s\n' "${1#v}" "${2#v}" | sort -V | tail -n 1)" == "${1#v}" ]]; }

selected() { # selected DIR MODULE: the version of MODULE that DIR's module selects
  (cd "$1" && go list -m -f '{{.Version}}' "$2")
}

want=("sigs.k8s.io/controller-runtime@$CONTROLLER_RUNTIME")
for m in "${K8S_MODULES[@]}"; do want+=("$m@$K8S"); done

if ! $build_only; then
  bad=""
  for mv in "${want[@]}"; do
    got="$(selected "$repo" "${mv%@*}")"
    if newer "$got" "${mv#*@}"; then
      bad+="  ${mv%@*}: go.mod selects $got, newer than the oldest claimed ${mv#*@}"$'\n'
    fi
  done
  if [[ -n "$bad" ]]; then
    printf 'release-oldest: FAIL: the root module requires newer versions than docs/compatibility.md claims (minimal version selection would lift a provider to them):\n%s' "$bad" >&2
    echo "release-oldest: move the claim and the pins in hack/release-oldest.sh, or lower go.mod's requirements" >&2
    exit 1
  fi
fi

cache="${CAPKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capkit}/release-oldest"
cache_lock "$cache"
src="$cache/src"
rm -rf "$src"
mkdir -p "$src"
(cd "$repo" && git ls-files -z --cached --others --exclude-standard -- . ':!test' ':!bin' |
  while IFS= read -r -d '' f; do [[ -e "$f" || -L "$f" ]] && printf '%s\0' "$f"; done |
  tar --null -T - -cf -) | tar -C "$src" -xf -

start=$SECONDS
echo "release-oldest: compiling the root module with controller-runtime $CONTROLLER_RUNTIME and k8s.io $K8S (${K8S_MODULES[*]})"
if ! out="$(cd "$src" && go get "${want[@]}" 2>&1)"; then
  printf '%s\n' "$out" >&2
  echo "release-oldest: FAIL: cannot get ${want[*]}" >&2
  exit 1
fi
bad=""
for mv in "${want[@]}"; do
  got="$(selected "$src" "${mv%@*}")"
  [[ "$got" == "${mv#*@}" ]] || bad+="  ${mv%@*}: selected $got, not ${mv#*@}"$'\n'
done
if [[ -n "$bad" ]]; then
  printf 'release-oldest: FAIL: cannot select the pinned versions:\n%s' "$bad" >&2
  exit 1
fi
if ! (cd "$src" && go list -export -f '{{.ImportPath}}' ./... >/dev/null); then
  echo "release-oldest: FAIL: the root module does not compile with controller-runtime $CONTROLLER_RUNTIME and k8s.io $K8S" >&2
  exit 1
fi
echo "release-oldest: pass: the root module compiles with controller-runtime $CONTROLLER_RUNTIME and k8s.io $K8S ($((SECONDS - start)) s)"
