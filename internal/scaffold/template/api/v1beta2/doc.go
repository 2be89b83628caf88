// Package v1beta2 is the API of the quux infrastructure provider: QuuxCluster and QuuxMachine (the
// InfraCluster and InfraMachine of Cluster API contract v1beta2) and their templates, in the API group
// infrastructure.sample.capkit.io.
//
// The types embed capkit's contract types, so that their JSON shape is the one Cluster API reads, and get
// their accessor methods (conditions, provisioned, control plane endpoint, provider ID, addresses, resource
// IDs) from `capkit generate accessors`, in zz_generated.accessors.go. Every CRD carries the label
// cluster.x-k8s.io/v1beta2=v1beta2, which tells Cluster API that API version v1beta2 implements contract v1beta2.
//
// +kubebuilder:object:generate=true
// +groupName=infrastructure.sample.capkit.io
package v1beta2
