// Package lifecycle drives a whole cluster through its life against a running provider and asks the provider's cloud
// what is left afterwards. It is the test that catches leaked and duplicated cloud resources across every controller of
// the provider at once.
//
// A Driver creates a Cluster, its InfraCluster, Machines with their bootstrap Secrets and InfraMachines,
// waits until all are provisioned, deletes them and asks the cloud, through a LeakChecker, what remains of
// the cluster. A test builds a Spec and calls Run(t, env.Client, spec); the package's own tests build
// theirs so, for a fake provider whose cloud is a map and whose leaks method lists what is left of a cluster:
//
//	func lifecycleSpec(ns string, core contract.Version, p *fakeProvider) lifecycle.Spec {
//		return lifecycle.Spec{
//			Namespace: ns, ClusterName: "demo", CoreVersion: core,
//			InfraClusterGVK: memClusterGVK, InfraMachineGVK: memMachineGVK,
//			InfraCluster: func(_, _ string) (client.Object, error) {
//				u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"region": "eu-1"}}}
//				return u, nil
//			},
//			InfraMachine: func(_, _ string, cp bool) (client.Object, error) {
//				size := "small"
//				if cp {
//					size = "large"
//				}
//				return &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"image": "ubuntu", "size": size}}}, nil
//			},
//			ControlPlaneMachines: 1, WorkerMachines: 2,
//			PlayCAPI:     true,
//			Timeout:      30 * time.Second,
//			PollInterval: 50 * time.Millisecond,
//			LeakChecker:  lifecycle.LeakCheckerFunc(p.leaks),
//		}
//	}
//
// With PlayCAPI the driver does Cluster API's minimal part itself (owner references, Cluster and Machine
// status, providerID, deletion order; see Driver.SimulateCAPI), for envtest without Cluster API's
// controllers; without it, it leaves that to the real controllers. Core objects are unstructured, in either
// core API version (Spec.CoreVersion), so the package does not import sigs.k8s.io/cluster-api.
//
// Every wait is bounded (Spec.Timeout) and its error, wrapping ErrTimeout, names what is not provisioned
// or not deleted, with its conditions or finalizers; leaks wrap ErrLeaked and are listed one a line.
// Spec.OnPoll reports each check of a wait, for a demo that prints progress.
package lifecycle
