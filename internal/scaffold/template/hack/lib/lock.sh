#!/usr/bin/env bash
# cache_lock DIR holds an exclusive lock on DIR/.lock until the calling script exits, so that two runs that
# share a cache (two `make test` at once, CI beside a developer) build one after the other: the second finds the
# first's binaries and builds nothing. Builds also write to a unique temporary name and rename it into place, so a
# reader never sees half a binary. Sourced by the hack/ scripts that fill the cache.
cache_lock() {
  local dir="$1"
  mkdir -p "$dir"
  exec {CAPKIT_LOCK_FD}>"$dir/.lock"
  if ! flock -w 3600 "$CAPKIT_LOCK_FD"; then
    echo "capkit: waited an hour for the lock on $dir; is another build stuck?" >&2
    exit 1
  fi
}

# tmp_beside DEST prints a unique temporary path in DEST's folder (same file system, so mv is atomic).
tmp_beside() {
  mktemp "$1.tmp.XXXXXX"
}
