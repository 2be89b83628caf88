// Package services holds vspherecloud's services: VCenter, the step of a VSphereCluster, and Machine, the step of
// a VSphereMachine, over the VM of a machine as an ensure.Resource (NewVMs, VMFuncs), both logged in through
// Sessions (one session per vCenter and credentials: those of the VSphereCluster's identity, which the reconcilers
// bind to the context, or else of its credentials Secret). A session no VSphereCluster uses any more is logged out:
// its credentials rotated, or its clusters were deleted (VCenter's delete ends with Sessions.Forget).
//
// VCenter logs in, finds the compute cluster (and datastore and network, when given) of each of spec.failureDomains
// and reports them in status.failureDomains, whence Cluster API copies them to the Cluster, and marks the cluster
// provisioned once its given control plane endpoint is set; inventory it does not find is terminal
// (ReasonInventoryNotFound) and names the failure domain. Machine places the VM of a Machine with spec.failureDomain
// in the root resource pool of the domain's compute cluster ("<computeCluster>/Resources"), with the domain's datastore
// and network when it gives them. Machine clones the VM through ensure.Exists with the Machine's bootstrap data (cloud-init only) as guestinfo, records its BIOS UUID in
// spec.providerID through scope.ProviderIDTracker, reports the addresses guest tools give it, and marks the machine
// provisioned once it runs with an address; its delete is ensure.Deleted. Neither keeps operation bookkeeping of its
// own: the clone's task, the wait for an address and the power-off before the destroy are ensure's.
//
// The resource's spec is a cloud.CloneSpec, its observation a *cloud.VM, its ID the VM's BIOS UUID, whose
// providerID is "vsphere://<BIOS UUID>" (ProviderID), as CAPV writes it, so that a machine service can checkpoint
// the ID in spec.providerID with scope.ProviderIDTracker. Create clones the template, powered on, with the ownership
// tags and the idempotency token (TagToken) as extraConfig and a fresh BIOS UUID, and returns
// ensure.Accepted("<task>/<token>"): the clone is an operation of ensure.Exists, which checkpoints it and polls it on
// later reconciles (no worker waits for it). The VM's name, unique in its folder, is the idempotency: a clone whose
// name is taken fails with DuplicateName, and the VM holding the name is the create's when it carries its token (a
// create repeated after a crash), or else the create fails, terminal, with ReasonVMNameTaken. Delete powers the VM
// off, and destroys it at a later call once it is off; ensure.Deleted waits meanwhile. A running VM without an
// address is pending (ReasonWaitingForIPAddress).
//
// Create gives the clone call the token as its operation ID, which vCenter records as the activation ID of the
// clone's task; FindOperation (ensure.OperationFinder) finds that task among vCenter's recent tasks, so a manager
// that stopped between the clone call and the checkpoint of the task reads the task after its restart instead of
// waiting out the longest clone: a delete whose clone failed is done at once (TestALostCloneThatFailed). vcsim
// records no activation ID; vspheretest's template does, as vCenter does (govmomi's CNS tests log the activation
// ID of a task as its operation ID). A vCenter that does not is safe too: the task is not found, and the step
// waits as before.
//
// Guarantees: ensure.IdempotentByName, and a search lag of the longest clone (WithMaxCloneTime, 30 minutes by
// default). The lag is what the simulator shows (vspheretest, cloud's TestACloneRunsAsATask): a VM does not exist,
// so no search lists it, until its clone task has ended; the search is immediate after that. It matters only after a
// crash between the clone call and the checkpoint of its task, when a delete waits up to that long for the VM to
// appear.
//
// vCenter calls at the simulator (TestAPICallsPerVM; clones of 2 minutes, a poll interval of 30 seconds). The first VM
// of a vCenter session: the reconcile that starts its clone makes 23 (a search by tags 3, the inventory, the template's
// devices and the port group 19, the clone 1); the VM is ready after 35 (a task read per poll: 9, ensure's waits
// doubling from 1 s to the poll interval; the read of the clone's VM, and one reconcile of the ready VM). A later VM of
// the same inventory, whose lookups the session's cache serves (cloud.Client, 5 minutes): 4 to start its clone (the
// search by tags 3, the clone 1), ready after 16. A reconcile of a ready VM makes 2 (FindByUuid and one read); a
// delete makes 19 over two reconciles (power off, then destroy; each reads the VM before and after, and searches by
// tags), 20 when the read after the destroy call finds the VM still being destroyed.
package services
