// Package memcloudtest is what memcloud's own tests and demo need on top of capkit's providertest
// harness: the envtest options of memcloud (its CRDs, admission webhooks and scheme, and capkit's minimal
// Cluster API CRDs), memcloud's controller manager running in-process on an in-memory cloud, the memcloud
// objects of a providertest.Lifecycle and a providertest.LeakChecker over the cloud. Cluster API's part
// (owner references, Cluster and Machine status, deletion order) is providertest's, with PlayCAPI:
//
//	var env *testenv.Environment
//
//	func TestMain(m *testing.M) { memcloudtest.Main(m, &env) }
//
//	func TestLifecycle(t *testing.T) {
//		p, _ := memcloudtest.StartProvider(ctx, env, memcloudtest.Options{Cloud: []cloud.Option{cloud.WithSeed(1)}})
//		defer p.Stop()
//		ns, _ := env.CreateNamespace(ctx, "lifecycle")
//		providertest.RunLifecycle(t, env.Client, memcloudtest.LifecycleSpec(ns, "demo", 1, 3, p.LeakChecker()))
//	}
package memcloudtest
