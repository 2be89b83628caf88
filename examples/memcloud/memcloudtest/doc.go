// Package memcloudtest runs memcloud for its own tests and demo, on top of capkit's providertest harness. It gives the
// envtest options of memcloud (its CRDs, admission webhooks and scheme, and capkit's minimal Cluster API CRDs),
// memcloud's controller manager running in-process on an in-memory cloud, the memcloud objects of a
// providertest/lifecycle Driver and a lifecycle.LeakChecker over the cloud. Cluster API's part (owner references,
// Cluster and Machine status, deletion order) is the lifecycle driver's, with PlayCAPI.
//
// A test package's TestMain starts envtest with memcloud's options: memcloudtest.TestEnv().Main(m, &env). A
// test then starts the provider on a cloud of its own (StartProvider with Options.Cloud, and Provider.Stop
// when it ends), creates a namespace and runs lifecycle.Run on LifecycleSpec(Cluster{...}, p.LeakChecker()).
// examples/memcloud/lifecycle/lifecycle_test.go does so, with and without cloud faults.
package memcloudtest
