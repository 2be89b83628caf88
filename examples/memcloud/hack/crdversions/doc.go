// Command crdversions keeps one API version in the CRDs controller-gen wrote to a folder. It is for the CRDs of an old
// release of memcloud, which `make generate` writes with controller-gen from that release's API package:
//
//	go run ./examples/memcloud/hack/crdversions -keep v1beta1 examples/memcloud/config/releases/v0.1.0/crd/bases
//
// controller-gen crd on paths=./examples/memcloud/api/v1beta1 alone does not write single-version CRDs: package
// v1beta1 uses types of package v1beta2 (NetworkSpec, Flavor, …), and once controller-gen has loaded v1beta2 for
// them it adds v1beta2's version to every CRD it generates after that (MemMachine and MemMachineTemplate, not
// MemCluster). memcloud v0.1.0 served v1beta1 only, so this command removes every other version from each CRD,
// makes the kept one the storage version, and drops the other versions from the contract labels
// (cluster.x-k8s.io/<contract>: <versions joined by _>), removing a label that names none of the kept ones. It
// rewrites each file in controller-gen's format, so running it twice changes nothing.
package main
