#!/usr/bin/env bash
# unchanged.sh CMD [ARG...] runs CMD in the current git work tree and fails when CMD failed or when it changed the
# tree: a file git status lists (untracked ones included, bin/ excepted: it holds the tools) or a change to a tracked
# file, e.g. a go.sum line a go command added. .ci/run runs make test and make demo through it.
set -euo pipefail
[[ $# -gt 0 ]] || { echo "usage: $0 CMD [ARG...]" >&2; exit 2; }

# state prints what git sees of the tree; on a fresh clone it prints nothing.
state() {
  git status --porcelain --untracked-files=all -- . ':!bin'
  git diff -- . ':!bin'
}

before="$(state)"
"$@"
after="$(state)"
if [[ "$after" != "$before" ]]; then
  echo "$* changed the tree; it must leave a clone as it found it:" >&2
  diff <(printf '%s\n' "$before") <(printf '%s\n' "$after") >&2 || true
  exit 1
fi
