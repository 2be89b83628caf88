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
// Its test also reads the code blocks of Go doc comments (the package doc and the docs of exported
// declarations, fields and methods) of every package of the repository, the nested test/ module included,
// testdata excluded. A block is Go when it parses as a file, declarations, statements or struct fields and
// has syntax only Go has (a declaration, an assignment, a call, a literal, a block statement, ...): YAML such
// as "kind: Foo" parses as a labeled statement but is not Go, nor are commands, flag listings and output. A
// Go block must equal, modulo indentation and gofmt, the body of an Example function (without its output
// comment) of the package's test files or a "// snippet:start NAME" region of the package's .go files, or be
// a whole file, compiled as above (root module only). A block that does not parse but has lines only Go has
// (a fragment with "..." in it) fails too.
//
// Package myprovider and its sub-packages (api/v1beta2, mycloud, services, controllers, cmd/manager) are the provider the
// README and docs/ show: a MyCluster and MyMachine on the v1beta2 contract, an in-memory cloud of VMs, the VM
// service of the README's sketch (tested with providertest/servicetest) and its reconciler's wiring.
package docstest
