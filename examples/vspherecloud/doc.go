// Package vspherecloud is capkit's third example provider, for vSphere, on govmomi's vCenter simulator (vcsim):
// a cloud capkit did not write, whose API is asynchronous (clone, power and destroy are tasks), has no idempotency
// token (a VM's name is unique in its folder), reports addresses only once guest tools run, and passes bootstrap data
// through guestinfo extraConfig (issue 42).
//
// Its packages:
//
//   - api/v1beta2: VSphereCluster (server, datacenter, a credentials Secret or a VSphereClusterIdentity, the control
//     plane endpoint given, failure domains from compute clusters), VSphereClusterIdentity (cluster-scoped: a Secret
//     in vspherecloud's namespace and the namespaces allowed to use it), VSphereMachine and VSphereMachineTemplate
//     (template, folder, resource pool, datastore, network, CPUs, memory, disk), with their CRDs and RBAC in config
//     (make generate).
//   - cloud: a small client over govmomi for what a Cluster API provider needs of a vCenter: connect, find the
//     observed inventory (never create or delete it), clone a VM from a template with cloud-init's guestinfo keys and
//     the ownership tags, read tasks and VMs, search VMs by tags, power off and destroy.
//   - services: the VM as an ensure.Resource (the clone is an operation of ensure.Exists, the VM's name its
//     idempotency, its BIOS UUID its ID: providerID "vsphere://<BIOS UUID>", as CAPV writes it), the machine service
//     over it (bootstrap data as guestinfo, providerID through scope.ProviderIDTracker, addresses from guest info),
//     and the cluster's (log in, report the failure domains whose compute clusters it finds, set the endpoint to an
//     address claimed from the virtual IP's IPAM pool when it is not given, provisioned once the endpoint is set). A
//     Machine with spec.failureDomain runs in the root resource pool of its domain's compute cluster. The credentials
//     are the identity's, which the reconcilers resolve and bind before any step (reconcile.WithIdentities), or else
//     the cluster's Secret's, read once per version (identity.SecretCache). The VSphereCluster names that Secret and
//     does not own it: clusterctl move takes it with the cluster only when it carries clusterctl.cluster.x-k8s.io/move
//     (contract.MarkForMove).
//   - controllers: the VSphereCluster and VSphereMachine reconcilers, capkit's generic ones with these steps, and
//     with identities (WithIdentities) when the manager is given their namespace.
//   - webhooks: the validating admission webhooks of the three kinds, on capkit's contract/admission: a server the
//     controllers can reach and that never changes, a VSphereMachine's name short enough for its VM, nothing of a
//     VSphereMachine but providerID (set once) changing after creation, templates immutable; config/webhook.
//   - cmd/manager: the controller manager (capkit's reconcile/manager), with the controllers and the webhooks,
//     --identity-namespace for identities.
//   - hack/components: writes config/infrastructure-components.yaml for clusterctl (capkit's release/components),
//     beside config/metadata.yaml; make generate runs it.
//   - vspheretest: vcsim for one test, cloning as vCenter does, with clones held on the simulator's own clock, its
//     SOAP calls counted at the client or, through an Endpoint, at the server, vCenter's REST API on request, and
//     guest tools played.
//
// Tested against the simulator: ensuretest's scenarios (18 of 23: the VM updates nothing in place, and the scenario
// of clouds without idempotent creates does not apply), a manager stopped during a clone (one VM after recovery)
// and a machine deleted while its clone runs (no VM left), with no operation bookkeeping in the provider, and the
// vCenter calls of a VM's life (services' doc); on envtest, the controllers provision a cluster of one machine and
// delete it with no VM left, delete a VSphereMachine while its clone is held (no VM left once it ends), provision with
// an identity's credentials and take a new password in its Secret at once, and refuse a namespace the identity does
// not allow with no vCenter call, cluster and machine alike, with the webhooks served and called by the API server
// (whose every rule webhooks' envtest test checks there). In the test module (test/vsphere), the manager runs as a
// process with the real Cluster API managers: clusters provision to Running and delete, a manager killed the moment
// its clone call reaches vCenter makes no second VM, clusters deleted during their clones leave none, a Machine
// placed in a failure domain runs in its compute cluster, the domains reported on the Cluster by Cluster API, and
// clusterctl move carries a cluster to another management cluster on the same vCenter with no VM cloned again or
// destroyed (a VM is found by spec.providerID, which moves, or by its ownership tags, which hold no UID); that API
// server has the CRDs only: the webhooks are served, not called. make bench-vsphere measures it beside CAPV v1.14.0
// (docs/benchmarks.md). test/clusterctl reads the clusterctl components with clusterctl's library, as clusterctl init
// does.
//
// Not built: machine pools (CAPV has none either).
//
// The RBAC markers of the controller manager, from which controller-gen writes config/rbac/role.yaml (ClusterRole
// manager-role): vspherecloud's kinds with their status and finalizers; the VSphereClusterIdentities, read only; the
// Cluster API Clusters and Machines the controllers read; Namespaces, whose labels identities may select; Secrets,
// for the bootstrap data and the vCenter credentials; the IPAddressClaims of virtual IPs and their IPAddresses; Events.
//
// +kubebuilder:rbac:groups=infrastructure.vspherecloud.capkit.io,resources=vsphereclusters;vspheremachines,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=infrastructure.vspherecloud.capkit.io,resources=vsphereclusters/status;vspheremachines/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=infrastructure.vspherecloud.capkit.io,resources=vsphereclusters/finalizers;vspheremachines/finalizers,verbs=update
// +kubebuilder:rbac:groups=infrastructure.vspherecloud.capkit.io,resources=vspheremachinetemplates,verbs=get;list;watch
// +kubebuilder:rbac:groups=infrastructure.vspherecloud.capkit.io,resources=vsphereclusteridentities,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters;machines,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch
// +kubebuilder:rbac:groups=ipam.cluster.x-k8s.io,resources=ipaddressclaims,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups=ipam.cluster.x-k8s.io,resources=ipaddresses,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
package vspherecloud
