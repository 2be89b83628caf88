// Package capienv runs the real Cluster API managers (core and kubeadm bootstrap, built by
// hack/capi-managers.sh) as subprocesses against an envtest API server, so that tests can prove a provider
// against Cluster API itself rather than against a model of it.
//
// A test package's TestMain calls Main, which starts envtest with the Cluster API CRDs installed as clusterctl
// would install them (CRDs) and a scheme with Cluster API's types, then a test starts the managers it needs
// (StartT) and creates Clusters and Machines; test/capi/main_test.go and test/capi/capi_test.go do so.
//
// StartT gives each manager free ports, a serving certificate and a kubeconfig, waits until its readyz
// endpoint answers, then registers the managers' admission webhooks and CRD conversion webhooks in the API
// server, so objects are defaulted and validated as in a real management cluster. Cleanup stops the managers
// (SIGTERM, then SIGKILL) and removes the webhooks again; on failure it prints the tail of each log.
//
// KubeconfigSecret makes the envtest API server double as the workload cluster: Cluster API's ClusterCache
// connects to it, so Nodes the test creates there give Machines their nodeRefs.
package capienv
