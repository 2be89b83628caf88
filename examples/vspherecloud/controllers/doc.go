// Package controllers wires vspherecloud's services (package services) into capkit's generic reconcilers: the
// VSphereCluster reconciler runs the step VCenter, the VSphereMachine reconciler the step VM. The reconcilers come from
// package reconcile, which does everything that is not vspherecloud's business: owner waits, pause, finalizers
// persisted before any vCenter call, bootstrap gates, one condition per step and Ready, patches that send only what
// changed. Both share one services.Sessions, so that a cluster and its machines use one vCenter session.
//
// In a manager, SetupWithManager registers both, reading credentials and bootstrap Secrets through the manager's API
// reader (never from a cache); NewClusterReconciler and NewMachineReconciler return them without a manager.
//
// WithIdentities adds capkit's identities (reconcile.WithIdentities): a VSphereCluster that names a
// VSphereClusterIdentity (spec.identityRef) logs in with the credentials of the identity's Secret, in vspherecloud's
// namespace, once the identity allows the cluster's namespace. Both reconcilers resolve it before any step (a machine
// through its cluster's VSphereCluster) and refuse otherwise with the IdentityReady condition, with no vCenter call;
// they put the credentials into the context of the steps (identity.ContextWithCredentials), where services.Sessions
// reads them. A change of an identity or of its Secret reconciles the clusters and machines that use it.
//
// The admission webhooks are package webhooks'; the controllers' envtest tests serve them, as the API server calls
// them there.
//
// The VSphereCluster's step claims the address of spec.virtualIP through an ipam.Claimer on the reconciler's client;
// the reconciler does not watch IPAddressClaims: a cluster waiting for its address looks again after the poll
// interval. No machine pools: CAPV has none either.
package controllers
