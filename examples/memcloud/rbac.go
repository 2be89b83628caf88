// Package memcloud is capkit's example Cluster API infrastructure provider. It runs clusters on memcloud, the
// in-memory IaaS of package cloud, and shows every part a real provider needs: the API (package api/v1beta2),
// the admission webhooks (package webhooks), the CRDs, RBAC and clusterctl files (folder config, made by
// `make generate`), and the controllers built on capkit's scope and reconcile packages.
//
// This file holds the RBAC markers of the controller manager, from which controller-gen writes
// config/rbac/role.yaml (ClusterRole manager-role):
//
//   - memcloud's own kinds, with their status and finalizers;
//   - the Cluster API Clusters, Machines and MachinePools the controllers read (owners, pause, bootstrap data
//     secret name, replicas);
//   - Secrets, to read the bootstrap data of Machines;
//   - Events, which the reconcilers emit;
//   - Cluster API IPAddressClaims, which the MemMachine controller creates, watches and deletes for
//     spec.addressesFromPools, and the IPAddresses the IPAM provider binds them to, which it reads.
//
// +kubebuilder:rbac:groups=infrastructure.memcloud.capkit.io,resources=memclusters;memmachines;memmachinepools,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=infrastructure.memcloud.capkit.io,resources=memclusters/status;memmachines/status;memmachinepools/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=infrastructure.memcloud.capkit.io,resources=memclusters/finalizers;memmachines/finalizers;memmachinepools/finalizers,verbs=update
// +kubebuilder:rbac:groups=infrastructure.memcloud.capkit.io,resources=memclustertemplates;memmachinetemplates,verbs=get;list;watch
// +kubebuilder:rbac:groups=infrastructure.memcloud.capkit.io,resources=memmachinetemplates/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=infrastructure.memcloud.capkit.io,resources=memclusteridentities,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters;machines;machinepools,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=ipam.cluster.x-k8s.io,resources=ipaddressclaims,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=ipam.cluster.x-k8s.io,resources=ipaddresses,verbs=get;list;watch
package memcloud
