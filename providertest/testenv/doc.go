// Package testenv gives a provider's tests a real API server. It is kube-apiserver and etcd (envtest), with the
// provider's CRDs and the Cluster API CRDs installed, started once per test package.
//
// Main starts the Environment in TestMain, runs the tests and stops it, whatever happens; the main_test.go of a
// package with tests against the API server:
//
//	package controllers_test
//
//	import (
//		"testing"
//
//		"github.com/capkit/capkit/providertest/testenv"
//	)
//
//	var env *testenv.Environment
//
//	func TestMain(m *testing.M) { testenv.Main(m, &env, testenv.WithCRDPaths("../config/crd/bases")) }
//
// The binaries come from $KUBEBUILDER_ASSETS, else from the cache folder that hack/envtest-binaries.sh
// fills (AssetsDir). The Cluster API CRDs are those in the folder given with WithCAPICRDs, else those of the
// sigs.k8s.io/cluster-api module in the provider's build list when there is one (CAPIModuleDir), else capkit's minimal Cluster and Machine CRDs
// (MinimalCAPICRDs), which serve both core API versions. ReadCRDs decodes CRDs shipped in an embed.FS.
//
// For a provider whose machines are Pods, StartFakeNodes runs the real kube-scheduler and KWOK's kwok
// controller against the Environment: Pods are scheduled onto fake nodes (with the zones given), become
// Running with an IP, and their deletions complete, with no container runtime and no docker; SetNotReady and
// SetReady fail a node and bring it back, as a lost machine would. The binaries
// and KWOK's stage definitions come from $CAPKIT_KWOK_ASSETS, else from the cache folder that
// hack/kwok-binaries.sh fills (NodeAssetsDir).
//
// Nothing an Environment starts outlives the process that started it, on Linux: NewEnvironment starts a reaper
// beside the process (the process's executable again, in a process group of its own) that, when the process ends
// without stopping them (go test's -timeout, SIGINT, SIGTERM, SIGKILL), kills kube-apiserver, etcd, kube-scheduler,
// kwok and every other process started after it that inherited the environment variable CAPKIT_TESTENV_RUN. In a
// test binary the reaper also ends the binary when its parent (go test) has gone, since go test does not pass its
// SIGTERM on. Then it removes their folders: etcd's data and the API server's certificates (one capkit-envtest-*
// folder in the temporary folder, which Stop removes too), the webhook serving certificates and the fake nodes' logs.
// A process started with an environment that drops CAPKIT_TESTENV_RUN is not reaped.
package testenv
