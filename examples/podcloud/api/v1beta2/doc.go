// Package v1beta2 is the API of podcloud, capkit's second example infrastructure provider, whose machines are
// Pods in a Kubernetes cluster: PodCluster and PodMachine (the InfraCluster and InfraMachine of Cluster API
// contract v1beta2), and their templates PodClusterTemplate (for ClusterClasses) and PodMachineTemplate, in the
// API group infrastructure.podcloud.capkit.io.
//
// The types embed capkit's contract types (contract.APIEndpoint, the v1beta2 status.initialization,
// contract.FailureDomain, contract.MachineAddress, contract.TemplateObjectMeta) and implement capkit's
// accessor interfaces with one-line methods, so that the typed scopes read and write them without reflection.
// Every CRD carries the label cluster.x-k8s.io/v1beta2=v1beta2.
//
// Status.Resources of PodCluster and PodMachine is capkit's resource-ID map: the target cluster's objects the
// controllers created, by key ("endpoint" → "ns/name/uid" of the Service). The Pod of a PodMachine is recorded
// in spec.providerID instead ("podcloud://ns/name/uid").
//
// A PodMachine's spec.resources (cpu and memory) become the requests and limits of its node container. A
// PodMachineTemplate's status is capkit's templates.Capacity: the controller copies spec.template.spec.resources
// to status.capacity, where the cluster autoscaler reads it to scale a MachineDeployment up from zero.
//
// +kubebuilder:object:generate=true
// +groupName=infrastructure.podcloud.capkit.io
package v1beta2
