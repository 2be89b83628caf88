// Package memcloudtest is what memcloud's own tests and demo need on top of capkit's providertest
// harness: the envtest options of memcloud (its CRDs, admission webhooks and scheme, and capkit's minimal
// Cluster API CRDs), memcloud's controller manager running in-process on an in-memory cloud, the memcloud
// objects of a providertest/lifecycle Driver and a lifecycle.LeakChecker over the cloud. Cluster API's part
// (owner references, Cluster and Machine status, deletion order) is the lifecycle driver's, with PlayCAPI:
//
//	var env *testenv.Environment
//
//	func TestMain(m *testing.M) { memcloudtest.TestEnv().Main(m, &env) }
//
//	func TestLifecycle(t *testing.T) {
//		p, _ := memcloudtest.StartProvider(ctx, env, memcloudtest.Options{Cloud: []cloud.Option{cloud.WithSeed(1)}})
//		defer p.Stop()
//		ns, _ := env.CreateNamespace(ctx, "lifecycle")
//		spec := memcloudtest.LifecycleSpec(memcloudtest.Cluster{Namespace: ns, Name: "demo", ControlPlane: 1, Workers: 3}, p.LeakChecker())
//		lifecycle.Run(t, env.Client, spec)
//	}
package memcloudtest
