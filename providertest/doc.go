// Package providertest is the test harness a Cluster API provider runs in its own CI: a real kube-apiserver
// and etcd with the provider's and Cluster API's CRDs installed.
package providertest
