// Package docstest checks that every Go snippet of README.md and docs/**/*.md compiles. Its test reads each
// ```go block of those files:
//
//   - a block preceded by a marker line <!-- snippet: PATH#NAME --> must be equal to the region NAME of the Go
//     file PATH (relative to the module root), the lines between "// snippet:start NAME" and
//     "// snippet:end NAME", with their common indentation removed; the file must be a .go file of the module
//     outside testdata, and its package is vetted (test files included), so the region is compiled;
//   - a block whose first line that is not a comment is a package clause is a whole file: it is compiled, all
//     such blocks in one "go build" run, each as a package of its own inside the capkit module (an overlay:
//     nothing is written into the checkout), so imports of github.com/capkit/capkit/... resolve against the
//     checkout; a file of an external test package (package x_test) is compiled as package x. Imports of
//     example.com/myprovider/... resolve to package myprovider below, the provider of the documentation's
//     sketches;
//   - any other ```go block fails the test, with its file and line.
//
// Blocks of other languages (sh, yaml, text) are not checked.
//
// Package myprovider and its sub-packages (api/v1beta2, mycloud, services, controllers, cmd/manager) are the provider the
// README and docs/ show: a MyCluster and MyMachine on the v1beta2 contract, an in-memory cloud of VMs, the VM
// service of the README's sketch (tested with providertest/servicetest) and its reconciler's wiring.
package docstest
