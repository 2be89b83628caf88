// Package apigate tests capkit's API compatibility gate, hack/apidiff.sh, which make verify runs (make apidiff).
// The gate compares the exported API of the root module at the last release that CHANGELOG.md names with the
// working tree, using go-apidiff (pinned in the Makefile, installed into bin/), and fails on an incompatible change
// that the "### ⚠ Breaking changes" part of CHANGELOG.md's "## Unreleased" section does not name. Its rules (how the
// release commit is found without tags, what is compared, how a change is named) are in CHANGELOG.md's header and
// at the top of hack/apidiff.sh.
//
// The tests build throwaway git repositories in a temporary folder, a tiny module with a released v0.1.0, and run the
// script on them: a branch that removes an exported function fails the gate with the function's name, and passes
// once the changelog names it; the early passes (no release yet, the release not committed, the release commit
// unchanged) say why. They also check that the script leaves the repository's HEAD, index and files as they were,
// and that capkit's own CHANGELOG.md has the shape the gate reads.
//
// They need git and the pinned go-apidiff: $CAPKIT_GO_APIDIFF (make test sets it), or bin/go-apidiff-VERSION with
// the Makefile's GO_APIDIFF_VERSION. A missing binary fails the tests with the make command that installs it.
// The package has no other code.
package apigate
