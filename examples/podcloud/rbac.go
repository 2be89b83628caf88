// Package podcloud is capkit's second example Cluster API infrastructure provider, whose machines are Pods in a
// Kubernetes cluster. The target cluster is by default the management cluster itself, and each Pod runs a node image
// whose entrypoint runs the Machine's cloud-config, rendered to bash by capkit's cloudinit package. It is the provider
// of the opposite kind to memcloud: asynchronous and eventually consistent (Pods are scheduled, start and end on their
// own time), with a Kubernetes API as its "cloud", and built on capkit's public API only.
//
// The API is in package api/v1beta2, the admission webhooks in package webhooks, the services in package
// services, the controllers in package controllers, the manager in cmd/manager and a demo in cmd/demo. The
// CRDs, RBAC and clusterctl files are in folder config, made by `make generate`.
//
// This file holds the RBAC markers of the controller manager, from which controller-gen writes
// config/rbac/role.yaml (ClusterRole manager-role):
//
//   - podcloud's own kinds, with their status and finalizers; the templates, read only, except the status of
//     PodMachineTemplates, where the capacity of their machines goes;
//   - the Cluster API Clusters and Machines the controllers read;
//   - Secrets: to read the bootstrap data of Machines, and to keep the bootstrap script Secrets of the target
//     cluster (when the target is the management cluster);
//   - Pods, Services and ServiceAccounts of the target cluster, and its Nodes (read only, for their zones);
//   - Events, which the reconcilers emit.
//
// +kubebuilder:rbac:groups=infrastructure.podcloud.capkit.io,resources=podclusters;podmachines,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=infrastructure.podcloud.capkit.io,resources=podclusters/status;podmachines/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=infrastructure.podcloud.capkit.io,resources=podclusters/finalizers;podmachines/finalizers,verbs=update
// +kubebuilder:rbac:groups=infrastructure.podcloud.capkit.io,resources=podclustertemplates;podmachinetemplates,verbs=get;list;watch
// +kubebuilder:rbac:groups=infrastructure.podcloud.capkit.io,resources=podmachinetemplates/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters;machines,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=secrets;pods;services;serviceaccounts,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
package podcloud
