// Package capi holds capkit's end-to-end tests against the real Cluster API: the core and kubeadm
// bootstrap managers of the sigs.k8s.io/cluster-api version in go.mod run as subprocesses beside envtest,
// with Cluster API's own CRDs, webhooks and conversion, while the tests play an infrastructure provider
// and envtest doubles as the workload cluster. See ../NOTES.md for what the controllers require.
package capi
