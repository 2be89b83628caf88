package services

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/capkit/capkit/reconcile/ensure"
)

// Resource keys: the names under which the services record object IDs (and tag the objects with
// ensure.TagResourceKey).
const (
	// KeyServiceAccount is the key of a PodCluster's ServiceAccount.
	KeyServiceAccount = "service-account"
	// KeyEndpoint is the key of a PodCluster's control plane Service.
	KeyEndpoint = "endpoint"
	// KeyBootstrap is the key of a PodMachine's bootstrap Secret.
	KeyBootstrap = "bootstrap"
	// KeyPod is the key of a PodMachine's Pod; its ID lives in spec.providerID.
	KeyPod = "pod"
)

// Labels of the objects in the target cluster, besides the ownership labels of ensure.Exists.
const (
	// LabelCluster is the name of the Cluster an object belongs to.
	LabelCluster = "podcloud.capkit.io/cluster"
	// LabelRole is "control-plane" or "worker" on a Pod; the control plane Service selects the former.
	LabelRole = "podcloud.capkit.io/role"
)

// Roles of a Pod (LabelRole).
const (
	RoleControlPlane = "control-plane"
	RoleWorker       = "worker"
)

// Reasons of the step conditions podcloud's services write, besides those of package reconcile.
const (
	// ReasonPodPending: the Pod waits to be scheduled or for its containers to start.
	ReasonPodPending = "PodPending"
	// ReasonPodFailed: the Pod ended (phase Failed or Succeeded); the machine is gone for good.
	ReasonPodFailed = "PodFailed"
	// ReasonLoadBalancerPending: the LoadBalancer Service has no address yet.
	ReasonLoadBalancerPending = "LoadBalancerPending"
	// ReasonUnsupportedBootstrapFormat: the bootstrap data is not cloud-config, the only format a Pod runs.
	ReasonUnsupportedBootstrapFormat = "UnsupportedBootstrapFormat"
	// ReasonInvalidBootstrapData: the cloud-config cannot be parsed or rendered.
	ReasonInvalidBootstrapData = "InvalidBootstrapData"
	// ReasonWaitingForPodCluster: the PodMachine waits for its PodCluster's ServiceAccount.
	ReasonWaitingForPodCluster = "WaitingForPodCluster"
)

// DefaultPollInterval is how long a step waits before looking again at a Pod that is not running, a
// LoadBalancer without an address or an object being deleted: the requeue of podcloud's reconcilers
// (reconcile.WithPollInterval), which ensure.Exists uses as its poll interval.
const DefaultPollInterval = 5 * time.Second

// clusterTags tags an object with its Cluster (LabelCluster).
func clusterTags(cluster string) ensure.Option {
	return ensure.WithTags(map[string]string{LabelCluster: cluster})
}

// objectName returns base+suffix, shortened with a hash of base when longer than a DNS label.
func objectName(base, suffix string) string {
	if len(base)+len(suffix) <= 63 {
		return base + suffix
	}
	sum := sha256.Sum256([]byte(base))
	return base[:63-len(suffix)-9] + "-" + hex.EncodeToString(sum[:4]) + suffix
}

// ServiceAccountName returns the name of the ServiceAccount of the Cluster named cluster.
func ServiceAccountName(cluster string) string { return objectName(cluster, "-node") }

// ServiceName returns the name of the control plane Service of the Cluster named cluster.
func ServiceName(cluster string) string { return objectName(cluster, "-apiserver") }

// SecretName returns the name of the bootstrap Secret of the PodMachine named machine.
func SecretName(machine string) string { return objectName(machine, "-bootstrap") }
