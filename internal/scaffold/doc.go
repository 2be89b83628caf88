// Package scaffold writes a new Cluster API infrastructure provider repository in capkit's shape, and adds an
// InfraMachinePool to one. It is what "capkit init" and the Kubebuilder plugin ("init", "create api") run.
//
// # Template scheme
//
// The provider Init writes is folder template: a real provider, compiled, vetted, linted and tested as part of
// capkit (its packages are github.com/capkit/capkit/internal/scaffold/template/...), embedded with //go:embed.
// Its placeholders are replaced in a single pass (strings.Replacer), in file contents and paths:
//
//	github.com/capkit/capkit/internal/scaffold/template   the module (Options.Module)
//	sample.capkit.io, sample-capkit-io                     the domain (Options.Domain), as is and in webhook paths
//	Quux, quux, QUUX                                       the provider (Options.Provider) in kinds, names, env vars
//	v0.0.0-capkit-version                                  the capkit version in go.mod
//
// A file the go tool must not see as what it is carries the suffix ".tmpl", removed on output (go.mod.tmpl: a
// go.mod would make the folder another module, which //go:embed cannot include). Go files are gofmt'ed after the
// substitution, and the generated YAML under config is marshalled again as controller-gen writes it, so that a
// name of another length than the placeholder's gives the files "make generate" writes, byte for byte.
//
// Folder machinepool holds what CreateMachinePool adds (Go files as *.go.tmpl: they belong to no package of
// capkit), and the generated files as "make generate" writes them after the addition. Hand-written files are
// edited before marker comments ("// +capkit:scaffold:types", ...) that Init writes.
//
// Neither holds a generated file edited by hand: capkit's "make generate" regenerates the template's as its own
// Makefile does, then runs internal/regen, which writes a provider with Init and CreateMachinePool into a
// temporary folder, runs its "make generate" and writes the generated files back into folder machinepool.
//
// # Versions
//
// The go.mod requires capkit and the versions of controller-runtime, k8s.io and testify that capkit's go.mod
// requires (a test keeps them equal), and declares capkit's command as a tool (go tool capkit generate
// accessors, go tool capkit check). It has no go.sum: the project's Makefile runs go mod tidy when go.sum is
// missing or older than go.mod, so "make test" works on the first run.
//
// TestGeneratedProjectPassesItsTests builds and tests generated projects with capkit replaced by this checkout.
package scaffold
