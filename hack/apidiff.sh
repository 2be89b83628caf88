#!/usr/bin/env bash
# hack/apidiff.sh [REPO] is capkit's API compatibility gate (make apidiff, run by make verify). It compares the
# exported API of the root module at the last release that CHANGELOG.md names with the working tree of REPO (default:
# the repository this script is in; also $APIDIFF_REPO), using go-apidiff, and fails on an incompatible change that
# the changelog's unreleased section does not name as a breaking change. The rules are in CHANGELOG.md's header:
#
#   - The last release is the first "## vX.Y.Z" heading of CHANGELOG.md ("## Unreleased" is not one).
#   - Its commit is the newest commit reachable from HEAD that added that heading line to CHANGELOG.md (found with
#     git log -G, so a clone without tags finds it too; the release tag goes on that same commit).
#   - Compared: every package of the root module except those under examples/ (the nested test/ module is another
#     module and never loaded); internal packages are skipped by go-apidiff itself.
#   - An incompatible change is named when the "### ⚠ Breaking changes" part of "## Unreleased" holds, in
#     backticks, `PKG.SYMBOL` or `PKG.*`: PKG is the package's import path relative to the module
#     (`scope`, `contract/lint`; the full import path also works), SYMBOL is the name go-apidiff prints before the
#     colon, without parentheses, pointer stars and type parameters: `(*ClusterScope[T]).PatchNow: removed` is
#     named by `scope.ClusterScope.PatchNow`, `Options.Field: removed` by `pkg.Options.Field`.
#
# It passes, and says why, when CHANGELOG.md names no release yet, when the named release is not committed (the
# working tree is that release), and when the working tree has the release commit's files.
#
# go-apidiff compares two commits and refuses a dirty tree; it checks out each commit and removes untracked files in
# the repository it runs in. So the script never runs it in REPO: it clones REPO into a work folder
# ($APIDIFF_WORKDIR, default $CAPKIT_CACHE/apidiff, i.e. ~/.cache/capkit/apidiff; one fixed path, so that the Go
# build cache keeps the compiled release between runs), records REPO's working tree (tracked and untracked files
# that .gitignore does not exclude) as a commit there through a separate index file, and runs go-apidiff in the
# clone. REPO's index, HEAD, refs and files are only read.
#
# Environment: GO_APIDIFF, the go-apidiff binary (default bin/go-apidiff-$GO_APIDIFF_VERSION of this script's
# repository, the version read from its Makefile). Exit codes: 0 compatible or every incompatible change named,
# 1 an incompatible change not named, 2 cannot compare (missing tool, no git repository, go-apidiff error).
set -euo pipefail
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES

here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=hack/lib/lock.sh
source "$here/lib/lock.sh"

say() { echo "apidiff: $*"; }
die() {
  echo "apidiff: $*" >&2
  exit 2
}

repo="${1:-${APIDIFF_REPO:-$here/..}}"
[[ -d "$repo" ]] || die "cannot read REPO \"$repo\": not a folder"
repo="$(git -C "$repo" rev-parse --show-toplevel 2>/dev/null)" || die "cannot use REPO \"${1:-${APIDIFF_REPO:-$here/..}}\": not in a git repository"
changelog="$repo/CHANGELOG.md"

if [[ -n "${GO_APIDIFF:-}" ]]; then
  [[ -x "$GO_APIDIFF" ]] || die "GO_APIDIFF=$GO_APIDIFF is not an executable file"
else
  capkit="$(cd "$here/.." && pwd)"
  v="$(sed -n 's/^GO_APIDIFF_VERSION[[:space:]]*:=[[:space:]]*//p' "$capkit/Makefile" 2>/dev/null | head -n 1)"
  [[ -n "$v" ]] || die "GO_APIDIFF is not set and $capkit/Makefile has no GO_APIDIFF_VERSION"
  GO_APIDIFF="$capkit/bin/go-apidiff-$v"
  [[ -x "$GO_APIDIFF" ]] || die "go-apidiff $v not found: run 'make $GO_APIDIFF' (make test, make apidiff and make verify install it)"
fi

# The last release: the first "## vX.Y.Z" heading.
release=""
if [[ -f "$changelog" ]]; then
  release="$(sed -nE 's/^## (v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?)([[:space:]].*)?$/\1/p' "$changelog" | head -n 1)"
fi
if [[ -z "$release" ]]; then
  say "pass: ${changelog#"$repo"/} names no release (no \"## vX.Y.Z\" heading): nothing to compare with"
  exit 0
fi
heading_re="^## ${release//./\\.}([[:space:]]|\$)"

has_heading() { # has_heading COMMIT: CHANGELOG.md at COMMIT has the release's heading
  git -C "$repo" show "$1:CHANGELOG.md" 2>/dev/null | grep -Eq "$heading_re"
}

head="$(git -C "$repo" rev-parse --verify -q 'HEAD^{commit}')" || head=""
if [[ -z "$head" ]] || ! has_heading "$head"; then
  say "pass: $release is not committed yet (HEAD's CHANGELOG.md has no \"## $release\"): the working tree is that release, nothing to compare with"
  exit 0
fi
commit=""
while read -r c; do
  parent="$(git -C "$repo" rev-parse --verify -q "$c^1" 2>/dev/null)" || parent=""
  if has_heading "$c" && { [[ -z "$parent" ]] || ! has_heading "$parent"; }; then
    commit="$c"
    break
  fi
done < <(git -C "$repo" log --format=%H -G"$heading_re" HEAD -- CHANGELOG.md)
if [[ -z "$commit" ]]; then
  die "HEAD's CHANGELOG.md names $release, but no commit reachable from HEAD adds \"## $release\" (a shallow clone? git fetch --unshallow)"
fi
short="$(git -C "$repo" rev-parse --short "$commit")"

# A clone of REPO and REPO's working tree as a commit in it.
work="${APIDIFF_WORKDIR:-${CAPKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capkit}/apidiff}"
mkdir -p "$work"
work="$(cd "$work" && pwd)"
cache_lock "$work"
clone="$work/repo"
rm -rf "$clone" "$work/index"
git clone -q --no-checkout "$repo" "$clone"
if ! git -C "$clone" cat-file -e "$head^{commit}" 2>/dev/null; then # a detached HEAD that no branch holds
  git -C "$clone" fetch -q --no-tags "$repo" "$head"
fi
exclude="$(git -C "$repo" rev-parse --git-path info/exclude)"
[[ "$exclude" == /* ]] || exclude="$repo/$exclude"
if [[ -f "$exclude" ]]; then
  mkdir -p "$clone/.git/info"
  cp "$exclude" "$clone/.git/info/exclude"
fi
snapshot() { GIT_INDEX_FILE="$work/index" git -C "$repo" --git-dir="$clone/.git" --work-tree="$repo" "$@"; }
snapshot add -A
tree="$(snapshot write-tree)"
if [[ "$tree" == "$(git -C "$clone" rev-parse "$commit^{tree}")" ]]; then
  if [[ "$commit" == "$head" ]]; then
    say "pass: HEAD is the release commit of $release ($short) and the working tree has no changes: nothing to compare"
  else
    say "pass: the working tree has the files of $release's release commit ($short): nothing to compare"
  fi
  exit 0
fi
new="$(GIT_AUTHOR_NAME=apidiff GIT_AUTHOR_EMAIL=apidiff@capkit.invalid GIT_COMMITTER_NAME=apidiff \
  GIT_COMMITTER_EMAIL=apidiff@capkit.invalid git -C "$clone" commit-tree --no-gpg-sign -p "$head" \
  -m "apidiff: the working tree of $repo" "$tree")"
git -C "$clone" -c advice.detachedHead=false checkout -q --detach "$new"

module="$(sed -nE 's/^module[[:space:]]+"?([^"[:space:]]+)"?.*$/\1/p' "$clone/go.mod" 2>/dev/null | head -n 1)"
[[ -n "$module" ]] || die "cannot read the module path of $repo/go.mod"

say "comparing the API of $module at $release ($short, the commit that added \"## $release\" to CHANGELOG.md) with the working tree"
out="$work/go-apidiff.out"
rc=0
(cd "$clone" && GOWORK=off "$GO_APIDIFF" --repo-path "$clone" "$commit" "$new") >"$out" 2>"$work/go-apidiff.err" || rc=$?
if [[ $rc -ne 0 && $rc -ne 1 ]]; then
  cat "$work/go-apidiff.err" "$out" >&2
  die "go-apidiff failed (exit code $rc)"
fi

# The incompatible changes, one a line: KEY<TAB>PACKAGE<TAB>CHANGE, KEY being PKG.SYMBOL as the changelog names it.
changes="$(awk -v mod="$module" '
  function norm(s) { gsub(/\[[^]]*\]/, "", s); gsub(/[()*]/, "", s); return s }
  /^[^ \t]/ { pkg = $0; next }
  /^  - / {
    if (pkg == mod "/examples" || index(pkg, mod "/examples/") == 1 || pkg == mod "/test" || index(pkg, mod "/test/") == 1) next
    line = substr($0, 5); name = line; i = index(line, ": "); if (i > 0) name = substr(line, 1, i - 1)
    rel = pkg; if (index(pkg, mod "/") == 1) rel = substr(pkg, length(mod) + 2)
    print rel "." norm(name) "\t" rel "\t" line
  }' "$out" | sort -u)"
if [[ -z "$changes" ]]; then
  say "pass: no incompatible change of the root module's API since $release ($short)"
  exit 0
fi

# The names in backticks of "## Unreleased" > "### ⚠ Breaking changes", one a line, normalized like the keys.
named="$(awk -v mod="$module" '
  function norm(s) { gsub(/\[[^]]*\]/, "", s); gsub(/[()*]/, "", s); return s }
  /^## / { unreleased = ($0 ~ /^## [Uu]nreleased/); breaking = 0; next }
  /^### / { breaking = unreleased && ($0 ~ /⚠/ || $0 ~ /[Bb]reaking/); next }
  breaking {
    s = $0
    while (match(s, /`[^`]+`/)) {
      n = substr(s, RSTART + 1, RLENGTH - 2); s = substr(s, RSTART + RLENGTH)
      if (index(n, mod "/") == 1) n = substr(n, length(mod) + 2)
      if (n ~ /\.\*$/) print n; else print norm(n)
    }
  }' "$changelog" | sort -u)"

missing="" covered=""
while IFS=$'\t' read -r key rel change; do
  if grep -qxF -e "$key" -e "$rel.*" <<<"$named"; then
    covered+="  \`$key\` ($rel: $change)"$'\n'
  else
    missing+="  \`$key\` ($rel: $change)"$'\n'
  fi
done <<<"$changes"

if [[ -n "$covered" ]]; then
  say "incompatible changes since $release ($short) named under \"### ⚠ Breaking changes\" in CHANGELOG.md:"
  printf '%s' "$covered"
fi
if [[ -n "$missing" ]]; then
  first="${missing%%$'\n'*}" && first="${first#  }" && first="${first%% (*}"
  {
    echo "apidiff: FAIL: incompatible changes since $release ($short) that CHANGELOG.md does not name:"
    printf '%s' "$missing"
    echo "apidiff: name each under \"## Unreleased\" > \"### ⚠ Breaking changes\" in CHANGELOG.md, in backticks as"
    echo "apidiff: printed above (\`PKG.SYMBOL\`, or \`PKG.*\` for every change of a package), with what users do instead:"
    echo "apidiff:   - ⚠ $first removed: use ... instead."
  } >&2
  exit 1
fi
say "pass: every incompatible change since $release ($short) is named in CHANGELOG.md"
