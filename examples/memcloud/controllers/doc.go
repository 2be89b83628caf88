// Package controllers wires memcloud's services (package services) into capkit's generic reconcilers. The MemCluster
// reconciler runs the steps Network, Subnets, SecurityGroup and LoadBalancer, the MemMachine reconciler the step
// Instance. The reconcilers come from package reconcile, which does everything that is not memcloud's business: owner
// waits, pause, finalizers persisted before any cloud call, bootstrap gates, one condition per step and Ready,
// reverse-order delete, patches that send only what changed.
//
// The services implement reconcile.Service over capkit's typed scope interfaces
// (scope.ClusterScoper[*v1beta2.MemCluster], scope.MachineScoper[*v1beta2.MemMachine]), so ClusterSteps and
// MachineSteps list them as reconcile.Steps as they are, with no adapter in between.
//
// # Running the provider
//
// In a manager (cmd/manager, or in-process in tests and the demo), with the reconcile options of the
// manager's flags; from TestManagerServesCloudMetrics:
//
//	require.NoError(t, controllers.SetupWithManager(mgr, cl, controllers.WithReconcileOptions(reconcile.WithPollInterval(50*time.Millisecond), reconcile.WithRateLimiter(limiters))))
//	require.NoError(t, webhooks.SetupWithManager(mgr))
//
// NewClusterReconciler and NewMachineReconciler return the reconcilers without a manager, so that a test
// can call Reconcile itself, for example through a scopetest.CountingClient to assert the API writes.
//
// # API writes
//
// Provisioning a MemMachine whose Cluster is provisioned and whose bootstrap data is ready costs three API
// writes: the finalizer and ownership key, spec.providerID (the instance ID, recorded at once after the
// create by scope.ProviderIDTracker), and status at Close. A reconcile that finds everything in place
// writes nothing and makes no mutating cloud call; for a MemMachine it reads the instance once (and, for a
// control plane machine, the load balancer), and never the bootstrap data Secret.
//
// # Changing a cluster
//
// The ingress rules of a MemCluster's security group (spec.securityGroup.ingressRules) may change: the next
// reconcile updates the security group in place, as it does when the rules were changed in the cloud behind
// the controller's back. The rest of the spec is immutable (webhooks).
//
// # Updating machines in place
//
// A MemMachine's flavor and tags (v1beta2.InPlaceFields) may change: the Instance step resizes and retags the
// running instance. SetupInPlaceExtension serves memcloud's extension of Cluster API's in-place update hooks
// (package inplace) on the manager's webhook server, so that a MachineDeployment whose new MemMachineTemplate
// changes only those fields updates its Machines in place instead of replacing them; an ExtensionConfig points
// Cluster API at it (docs/in-place-updates.md). cmd/manager and memcloudtest.StartProvider register it beside
// the webhooks; with WithIdentities it calls memcloud with the account of each machine's cluster.
package controllers
