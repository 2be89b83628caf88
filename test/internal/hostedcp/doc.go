// Package hostedcp is a control plane provider for tests: HostedControlPlane and HostedControlPlaneTemplate
// (group controlplane.test.capkit.io, contract v1beta2), whose control plane runs outside the cluster's
// machines, as hosted control planes do. It lets the real Cluster API topology controller run a ClusterClass
// where the kubeadm control plane manager cannot run: KubeadmControlPlane talks to each member's etcd, and an
// envtest workload cluster has none.
//
// Run plays the provider. For each HostedControlPlane of a Cluster whose infrastructure has set the control
// plane endpoint it creates the cluster certificates (as a kubeadm control plane does, so the kubeadm
// bootstrap provider can join workers), then reports the control plane initialized at its spec.version.
// It has no machines, so nothing else of the control plane contract applies.
package hostedcp
