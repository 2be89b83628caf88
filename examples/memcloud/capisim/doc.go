// Package capisim plays Cluster API's part for memcloud's lifecycle tests and demo, on an API server that
// has Cluster API's CRDs but not its controllers (capkit's root module does not import Cluster API).
//
// NewEnvironment starts envtest with memcloud's CRDs and admission webhooks and capkit's minimal Cluster and
// Machine CRDs; StartProvider runs memcloud's controller manager in-process on it, with a new in-memory cloud
// and a scopetest.CountingClient that counts the controllers' API writes.
//
// A Driver creates one cluster the way a user and Cluster API would (a v1beta2 Cluster referencing a
// MemCluster; per machine a Machine, a MemMachine and a bootstrap Secret holding a kubeadm-style cloud-config
// with format cloud-config and the cluster-name label) and does, on every Sync, the minimum Cluster API's
// controllers do for a provider to make progress: owner references, the Cluster's
// status.initialization.infrastructureProvisioned and endpoint, the Machines' providerID, addresses and
// provisioned flag, and deletion in Cluster API's order (machines before the cluster, infra objects before
// their owners):
//
//	env, _ := capisim.NewEnvironment()
//	p, _ := capisim.StartProvider(ctx, env, capisim.Options{Cloud: []cloud.Option{cloud.WithSeed(1)}})
//	d, _ := capisim.New(env.Client, capisim.ClusterSpec{Namespace: ns, Name: "demo", ControlPlane: 1, Workers: 3})
//	_ = d.Create(ctx)
//	require.Eventually(t, func() bool { _ = d.Sync(ctx); ok, _ := d.Provisioned(ctx); return ok }, time.Minute, 50*time.Millisecond)
//	_ = d.Delete(ctx)
//	require.Eventually(t, func() bool { _ = d.Sync(ctx); ok, _ := d.Gone(ctx); return ok }, time.Minute, 50*time.Millisecond)
//
// It is a stand-in for providertest's generic lifecycle driver, specialised to memcloud.
package capisim
