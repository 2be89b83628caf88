// Package apigate tests capkit's API compatibility gate, hack/apidiff.sh, which make verify runs (make apidiff).
// The gate compares the exported API of the root module at the last release that CHANGELOG.md names, recorded in
// hack/api/vX.Y.Z.export by the release commit (make api-baseline), with the working tree, using
// golang.org/x/exp/cmd/apidiff (pinned in the Makefile, installed into bin/), and fails on an incompatible change
// that the "### ⚠ Breaking changes" part of CHANGELOG.md's "## Unreleased" section does not name. Its rules (what
// is compared, how a change is named) are in CHANGELOG.md's header and at the top of hack/apidiff.sh.
//
// The tests build throwaway modules in a temporary folder, without git (as a shallow clone has no history), write a
// released v0.1.0's export file, and run the script on them: a tree that removes an exported function fails the
// gate with the function's name, and passes once the changelog names it; a release heading without its export
// file fails and names the command; no release passes and says why. They also check that the gate leaves every
// file as it was, that capkit's own CHANGELOG.md has the shape the gate reads, and that its last release has its
// export file.
//
// They need the pinned apidiff: $CAPKIT_APIDIFF (make test sets it), or bin/apidiff-VERSION with the Makefile's
// APIDIFF_VERSION. A missing binary fails the tests with the make command that installs it. The package has no
// other code.
package apigate
