// Package vspherecloud is capkit's third example provider, for vSphere, on govmomi's vCenter simulator (vcsim):
// a cloud capkit did not write, whose API is asynchronous (clone, power and destroy are tasks), has no idempotency
// token (a VM's name is unique in its folder), reports addresses only once guest tools run, and passes bootstrap data
// through guestinfo extraConfig (issue 42).
//
// This is its first slice:
//
//   - cloud: a small client over govmomi for what a Cluster API provider needs of a vCenter: connect, find the
//     observed inventory (never create or delete it), clone a VM from a template with cloud-init's guestinfo keys and
//     the ownership tags, read tasks and VMs, search VMs by tags, power off and destroy.
//   - services: the VM as an ensure.Resource: the clone is an operation of ensure.Exists, the VM's name its
//     idempotency, its BIOS UUID its ID (providerID "vsphere://<BIOS UUID>", as CAPV writes it).
//   - vspheretest: vcsim for one test, cloning as vCenter does, with clones held on the simulator's own clock and its
//     SOAP calls counted.
//
// Tested against the simulator: ensuretest's scenarios (18 of 23: the VM updates nothing in place, and the scenario
// of clouds without idempotent creates does not apply), a manager stopped during a clone (one VM after recovery)
// and a machine deleted while its clone runs (no VM left), with no operation bookkeeping in the provider, and the
// vCenter calls of a VM's life (services' doc).
//
// Still to come (issue 42): the API types (VSphereCluster with server, datacenter, credentials through capkit's
// identities, control plane endpoint, failure domains; VSphereMachine and its template), the controllers and
// webhooks, the machine service (power state, addresses, providerID through scope.ProviderIDTracker), envtest and
// e2e tests with the Cluster API managers, clusterctl move, and the measurements side by side with CAPV.
//
// The RBAC markers of the controller manager, from which controller-gen writes config/rbac/role.yaml (ClusterRole
// manager-role): vspherecloud's kinds with their status and finalizers; the Cluster API Clusters and Machines the
// controllers read; Secrets, for the bootstrap data and the vCenter credentials; Events.
//
// +kubebuilder:rbac:groups=infrastructure.vspherecloud.capkit.io,resources=vsphereclusters;vspheremachines,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=infrastructure.vspherecloud.capkit.io,resources=vsphereclusters/status;vspheremachines/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=infrastructure.vspherecloud.capkit.io,resources=vsphereclusters/finalizers;vspheremachines/finalizers,verbs=update
// +kubebuilder:rbac:groups=infrastructure.vspherecloud.capkit.io,resources=vspheremachinetemplates,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters;machines,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
package vspherecloud
