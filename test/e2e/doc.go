// Package e2e runs memcloud, capkit's example infrastructure provider, beside the real Cluster API v1.14
// managers (core and kubeadm bootstrap, built by hack/capi-managers.sh) against one envtest API server that
// holds Cluster API's own CRDs, memcloud's CRDs and the admission webhooks of all three.
//
// The package has tests only; run them with `make test-e2e`, which sets KUBEBUILDER_ASSETS and
// CAPKIT_CAPI_BIN. Two tests matter:
//
//   - TestMemcloudWithRealClusterAPI drives one cluster the way a user does: a Cluster on a MemCluster, a
//     control plane Machine bootstrapped by a KubeadmConfig, a MachineDeployment of workers from a
//     KubeadmConfigTemplate and a MemMachineTemplate. It proves that Cluster API's controllers read memcloud
//     through the contract (provisioned flags, endpoint, providerID, addresses), that the bootstrap data the
//     real kubeadm bootstrap provider wrote reaches the instance and renders with package cloudinit, and that
//     deleting the Cluster leaves nothing in the cloud.
//   - TestChaos runs 20 clusters of 5 Machines each through the same managers while the cloud fails 20% of
//     its mutating calls (half of them after the change), tag search lags, another writer provokes
//     resourceVersion conflicts on memcloud's objects and memcloud's manager is stopped and started again
//     with the same cloud at random points. Every cluster must converge, and the cloud must hold no duplicate
//     and, after delete, no resource at all.
//
// The envtest API server doubles as every workload cluster: the tests play the kubelet by creating a Ready
// Node with the Machine's providerID once its instance is provisioned (see test/NOTES.md).
package e2e
