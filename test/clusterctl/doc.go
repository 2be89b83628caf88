// Package clusterctl_test uses the real clusterctl library (sigs.k8s.io/cluster-api/cmd/clusterctl/client) as a
// user would, against capkit's example providers' release files: a cluster generated from memcloud's cluster
// template with clusterctl's variables is accepted by an API server with Cluster API's CRDs and memcloud's
// admission webhooks.
package clusterctl_test
