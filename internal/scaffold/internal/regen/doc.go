// Command regen regenerates the generated files of internal/scaffold/machinepool. They are what CreateMachinePool
// writes, as "make generate" leaves them after the addition of the machine pool; capkit's make generate runs it, after
// it has regenerated the template's own generated files:
//
//	go run ./internal/scaffold/internal/regen -controller-gen bin/controller-gen-v0.21.0
//
// It writes a provider with Init and CreateMachinePool, in the template's placeholders (provider quux, domain
// sample.capkit.io) and with capkit replaced by the checkout, into a temporary folder; runs the project's
// "make generate" there (go mod tidy, controller-gen, capkit generate accessors, hack/components); and writes
// back into the machinepool folder every generated file (zz_generated.*.go, config/crd, config/rbac,
// config/webhook, config/infrastructure-components.yaml) that the machine pool adds or changes, Go files with
// the suffix ".tmpl", the module path mapped back to the template's. Generated files of the folder that the
// machine pool no longer changes are removed. It fails when make generate changes a hand-written file.
package main
