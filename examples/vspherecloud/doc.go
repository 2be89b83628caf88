// Package vspherecloud is capkit's third example provider, for vSphere, on govmomi's vCenter simulator (vcsim):
// a cloud capkit did not write, whose API is asynchronous (clone, power and destroy are tasks), has no idempotency
// token (a VM's name is unique in its folder), reports addresses only once guest tools run, and passes bootstrap data
// through guestinfo extraConfig (issue 42).
//
// Its packages:
//
//   - api/v1beta2: VSphereCluster (server, datacenter, a credentials Secret, the control plane endpoint given),
//     VSphereMachine and VSphereMachineTemplate (template, folder, resource pool, datastore, network, CPUs, memory,
//     disk), with their CRDs and RBAC in config (make generate).
//   - cloud: a small client over govmomi for what a Cluster API provider needs of a vCenter: connect, find the
//     observed inventory (never create or delete it), clone a VM from a template with cloud-init's guestinfo keys and
//     the ownership tags, read tasks and VMs, search VMs by tags, power off and destroy.
//   - services: the VM as an ensure.Resource (the clone is an operation of ensure.Exists, the VM's name its
//     idempotency, its BIOS UUID its ID: providerID "vsphere://<BIOS UUID>", as CAPV writes it), the machine service
//     over it (bootstrap data as guestinfo, providerID through scope.ProviderIDTracker, addresses from guest info),
//     and the cluster's (log in with the credentials Secret, provisioned once the endpoint is given).
//     The credentials Secret is read once per version (identity.SecretCache). The VSphereCluster names it and does
//     not own it: clusterctl move takes it with the cluster only when it carries clusterctl.cluster.x-k8s.io/move
//     (contract.MarkForMove).
//   - controllers: the VSphereCluster and VSphereMachine reconcilers, capkit's generic ones with these steps.
//   - cmd/manager: the controller manager (capkit's reconcile/manager).
//   - vspheretest: vcsim for one test, cloning as vCenter does, with clones held on the simulator's own clock, its
//     SOAP calls counted at the client or, through an Endpoint, at the server, vCenter's REST API on request, and
//     guest tools played.
//
// Tested against the simulator: ensuretest's scenarios (18 of 23: the VM updates nothing in place, and the scenario
// of clouds without idempotent creates does not apply), a manager stopped during a clone (one VM after recovery)
// and a machine deleted while its clone runs (no VM left), with no operation bookkeeping in the provider, and the
// vCenter calls of a VM's life (services' doc); on envtest, the controllers provision a cluster of one machine and
// delete it with no VM left, and delete a VSphereMachine while its clone is held (no VM left once it ends). In the
// test module (test/vsphere), the manager runs as a process with the real Cluster API managers: clusters provision to
// Running and delete, a manager killed the moment its clone call reaches vCenter makes no second VM, clusters
// deleted during their clones leave none, and clusterctl move carries a cluster to another management cluster on
// the same vCenter with no VM cloned again or destroyed (a VM is found by spec.providerID, which moves, or by its
// ownership tags, which hold no UID); make bench-vsphere measures it beside CAPV v1.14.0 (docs/benchmarks.md).
//
// Still to come (issue 42): webhooks, cluster-scoped identities, failure domains, machine pools, a control plane
// endpoint from a virtual IP and clusterctl components.
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
