// Command demo runs memcloud, capkit's example provider, end to end on a real API server. It starts envtest with
// memcloud's CRDs and webhooks and capkit's minimal Cluster API CRDs, runs the controllers in-process on the in-memory
// cloud with fault injection, creates a cluster the way Cluster API would (providertest's lifecycle driver, with
// memcloud's objects from memcloudtest), prints a table of the objects whenever it changes, deletes the cluster, and
// ends with a one-line summary:
//
//	KUBEBUILDER_ASSETS=... go run ./examples/memcloud/cmd/demo [--machines 1+3] [--faults 0.1] [--seed 1]
//
// It exits 1 when the cluster does not converge within --timeout, or when a cloud resource leaked or was
// created twice. The output never contains bootstrap data.
package main
