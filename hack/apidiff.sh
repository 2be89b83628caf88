#!/usr/bin/env bash
# hack/apidiff.sh [--write] [REPO] is capkit's API compatibility gate (make apidiff, run by make verify). It compares
# the exported API of the root module at the last release that CHANGELOG.md names with the working tree of REPO
# (default: the repository this script is in; also $APIDIFF_REPO), using golang.org/x/exp/cmd/apidiff, and fails on
# an incompatible change that the changelog's unreleased section does not name as a breaking change. The rules are in
# CHANGELOG.md's header:
#
#   - The last release is the first "## vX.Y.Z" heading of CHANGELOG.md ("## Unreleased" is not one).
#   - Its API is the file hack/api/vX.Y.Z.export in REPO: the module's export data (types, signatures, methods;
#     no code), written by `hack/apidiff.sh --write` (make api-baseline) in the release commit. The gate reads no
#     git history, so it gives the same answer in a full clone, a shallow clone or a copy without .git.
#   - Compared: every package of the root module except those under examples/ and internal/ (the nested test/
#     module is another module and never loaded).
#   - An incompatible change is named when the "### ⚠ Breaking changes" part of "## Unreleased" holds, in
#     backticks, `PKG.SYMBOL` or `PKG.*`: PKG is the package's import path relative to the module
#     (`scope`, `contract/lint`; the full import path also works), SYMBOL is the name apidiff prints before the
#     colon, without parentheses, pointer stars and type parameters: `(*ClusterScope[T]).PatchNow: removed` is
#     named by `scope.ClusterScope.PatchNow`, `Options.Field: removed` by `pkg.Options.Field`.
#
# It passes, and says why, when CHANGELOG.md names no release yet. It fails (exit code 2) when the release's export
# file is missing, naming the command that writes it.
#
# --write writes hack/api/vX.Y.Z.export for the release CHANGELOG.md names from REPO's working tree, and does
# nothing else: run it in the release commit (its tree is the release).
#
# Environment: APIDIFF, the apidiff binary (default bin/apidiff-$APIDIFF_VERSION of this script's repository, the
# version read from its Makefile). Exit codes: 0 compatible or every incompatible change named (or, with --write,
# the file written), 1 an incompatible change not named, 2 cannot compare (missing tool or export file, a package
# that does not compile, an apidiff error).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"

say() { echo "apidiff: $*"; }
die() {
  echo "apidiff: $*" >&2
  exit 2
}

write=false
if [[ "${1:-}" == "--write" ]]; then
  write=true
  shift
fi
repo="${1:-${APIDIFF_REPO:-$here/..}}"
[[ -d "$repo" ]] || die "cannot read REPO \"$repo\": not a folder"
repo="$(cd "$repo" && pwd)"
[[ -f "$repo/go.mod" ]] || die "cannot use REPO \"$repo\": it has no go.mod"
changelog="$repo/CHANGELOG.md"

if [[ -n "${APIDIFF:-}" ]]; then
  [[ -x "$APIDIFF" ]] || die "APIDIFF=$APIDIFF is not an executable file"
else
  capkit="$(cd "$here/.." && pwd)"
  v="$(sed -n 's/^APIDIFF_VERSION[[:space:]]*:=[[:space:]]*//p' "$capkit/Makefile" 2>/dev/null | head -n 1)"
  [[ -n "$v" ]] || die "APIDIFF is not set and $capkit/Makefile has no APIDIFF_VERSION"
  APIDIFF="$capkit/bin/apidiff-$v"
  [[ -x "$APIDIFF" ]] || die "apidiff $v not found: run 'make $APIDIFF' (make test, make apidiff and make verify install it)"
fi

module="$(sed -nE 's/^module[[:space:]]+"?([^"[:space:]]+)"?.*$/\1/p' "$repo/go.mod" | head -n 1)"
[[ -n "$module" ]] || die "cannot read the module path of $repo/go.mod"

# The last release: the first "## vX.Y.Z" heading.
release=""
if [[ -f "$changelog" ]]; then
  release="$(sed -nE 's/^## (v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?)([[:space:]].*)?$/\1/p' "$changelog" | head -n 1)"
fi
if [[ -z "$release" ]]; then
  $write && die "--write: ${changelog#"$repo"/} names no release (no \"## vX.Y.Z\" heading): add the release's heading first"
  say "pass: ${changelog#"$repo"/} names no release (no \"## vX.Y.Z\" heading): nothing to compare with"
  exit 0
fi
export_file="$repo/hack/api/$release.export"
rel_export="${export_file#"$repo"/}"

# apidiff loads packages with the go command, in REPO, from the files as they are: no workspace, no go.mod update.
run_apidiff() { (cd "$repo" && GOWORK=off GOFLAGS=-mod=readonly "$APIDIFF" "$@"); }

if $write; then
  mkdir -p "$(dirname "$export_file")"
  tmp="$(mktemp "$export_file.tmp.XXXXXX")"
  if ! run_apidiff -m -w "$tmp" "$module" 2>"$tmp.err"; then
    grep -v '^Ignoring internal package ' "$tmp.err" >&2 || true
    rm -f "$tmp" "$tmp.err"
    die "cannot write the API of $module at $release"
  fi
  rm -f "$tmp.err"
  mv -f "$tmp" "$export_file"
  say "wrote $rel_export: the API of $module at $release ($(wc -c <"$export_file") bytes)"
  exit 0
fi

[[ -f "$export_file" ]] || die "${changelog#"$repo"/} names $release, but $rel_export is missing: the release commit writes it with 'make api-baseline' (hack/apidiff.sh --write)"

say "comparing the API of $module at $release ($rel_export) with the working tree"
out="$(mktemp)" err="$(mktemp)"
trap 'rm -f "$out" "$err"' EXIT
if ! run_apidiff -m -incompatible "$export_file" "$module" >"$out" 2>"$err"; then
  grep -v '^Ignoring internal package ' "$err" >&2 || true
  cat "$out" >&2
  die "apidiff failed"
fi

# The incompatible changes, one a line: KEY<TAB>PACKAGE<TAB>CHANGE, KEY being PKG.SYMBOL as the changelog names it.
# apidiff prints "- ./PKG.SYMBOL: change" for a package below the module's root, "- SYMBOL: change" for the root
# package and "- package IMPORTPATH: removed" for a removed package.
changes="$(awk -v mod="$module" '
  function norm(s) { gsub(/\[[^]]*\]/, "", s); gsub(/[()*]/, "", s); return s }
  function outside(rel) { return rel ~ /^(examples|internal|test)(\/|$)/ || rel ~ /\/internal(\/|$)/ }
  /^- / {
    line = substr($0, 3); i = index(line, ": "); name = (i > 0) ? substr(line, 1, i - 1) : line
    if (name ~ /^package /) {
      path = substr(name, 9); rel = path
      if (index(path, mod "/") == 1) rel = substr(path, length(mod) + 2); else if (path == mod) rel = mod
      if (!outside(rel)) print rel ".*\t" rel "\t" line
      next
    }
    change = line
    if (substr(name, 1, 2) == "./") {
      name = substr(name, 3); head = name; p = index(head, "("); if (p > 0) head = substr(head, 1, p - 1)
      slash = 0; for (k = length(head); k > 0; k--) if (substr(head, k, 1) == "/") { slash = k; break }
      dot = index(substr(name, slash + 1), ".")
      rel = substr(name, 1, slash + dot - 1); sym = substr(name, slash + dot + 1)
      change = substr(line, length(rel) + 4)
    } else {
      rel = mod; sym = name
    }
    if (outside(rel)) next
    print rel "." norm(sym) "\t" rel "\t" change
  }' "$out" | sort -u)"
if [[ -z "$changes" ]]; then
  say "pass: no incompatible change of the root module's API since $release"
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
  say "incompatible changes since $release named under \"### ⚠ Breaking changes\" in CHANGELOG.md:"
  printf '%s' "$covered"
fi
if [[ -n "$missing" ]]; then
  first="${missing%%$'\n'*}" && first="${first#  }" && first="${first%% (*}"
  {
    echo "apidiff: FAIL: incompatible changes since $release that CHANGELOG.md does not name:"
    printf '%s' "$missing"
    echo "apidiff: name each under \"## Unreleased\" > \"### ⚠ Breaking changes\" in CHANGELOG.md, in backticks as"
    echo "apidiff: printed above (\`PKG.SYMBOL\`, or \`PKG.*\` for every change of a package), with what users do instead:"
    echo "apidiff:   - ⚠ $first removed: use ... instead."
  } >&2
  exit 1
fi
say "pass: every incompatible change since $release is named in CHANGELOG.md"
