// Package v1beta1 proves that an infrastructure provider built on capkit with the v1beta1 provider contract
// works with the real Cluster API v1.14 managers (core and kubeadm bootstrap, built by
// hack/capi-managers.sh) against envtest.
//
// The provider lives in the tests: hand-written CRDs (testdata/) for OldCluster and OldMachine in group
// infrastructure.v1beta1.capkit.io, labelled only cluster.x-k8s.io/v1beta1: v1alpha1, with the v1beta1
// shapes (status.ready, failure domains as a map, metav1 conditions at status.v1beta2.conditions), and
// reconcilers from package reconcile over *unstructured.Unstructured whose steps call ensure.Exists on
// memcloud's in-memory cloud. The contract version is discovered from the CRD label, never passed.
//
// The package has tests only; run them with `make test-e2e`, which sets KUBEBUILDER_ASSETS and
// CAPKIT_CAPI_BIN.
package v1beta1
