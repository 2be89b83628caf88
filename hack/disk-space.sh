#!/usr/bin/env bash
# hack/disk-space.sh [MIN_GIB] makes room before a CI run: when the file system of Go's build cache has less than
# MIN_GIB (default 12) GiB free, it empties the build cache (go clean -cache). The cache only grows while code
# changes: Go trims entries unused for five days, and each run builds new ones (53 GiB of it filled this machine's
# disk, and a run failed with "no space left on device" in whichever test wrote next). The run after the clean builds
# from scratch, a few minutes longer. It prints what it found and did.
set -euo pipefail
min="${1:-12}"
[[ "$min" =~ ^[0-9]{1,4}$ ]] || { echo "hack/disk-space.sh: MIN_GIB must be a whole number of GiB, got \"$min\"" >&2; exit 2; }
cache="$("${GO:-go}" env GOCACHE)"
# free_gib prints the GiB free on the file system of $1, or of its nearest folder that exists (a fresh machine has no
# build cache yet).
free_gib() {
  local d="$1"
  while [[ ! -d "$d" && "$d" != "/" && "$d" != "." ]]; do d="$(dirname "$d")"; done
  df -Pk "$d" | awk 'NR == 2 { print int($4 / 1048576) }'
}
free="$(free_gib "$cache")"
echo "capkit: $free GiB free for Go's build cache ($cache), $(free_gib "${TMPDIR:-/tmp}") GiB for temporary files"
if (( free < min )); then
  echo "capkit: less than $min GiB free: emptying Go's build cache ($(du -sh "$cache" 2>/dev/null | cut -f1))"
  "${GO:-go}" clean -cache
  echo "capkit: now $(free_gib "$cache") GiB free"
fi
