package services

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"time"

	"k8s.io/utils/ptr"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/webhooks"
	"github.com/capkit/capkit/reconcile/ensure"
)

// Resource keys: the names under which the services record cloud IDs in status.resources (and tag the
// resources with ensure.TagResourceKey).
const (
	// KeyNetwork is the key of a MemCluster's network.
	KeyNetwork = "network"
	// KeySubnetPrefix starts the key of each subnet of a MemCluster, followed by the subnet's name.
	KeySubnetPrefix = "subnet-"
	// KeySecurityGroup is the key of a MemCluster's security group.
	KeySecurityGroup = "security-group"
	// KeyLoadBalancer is the key of a MemCluster's API server load balancer.
	KeyLoadBalancer = "load-balancer"
	// KeyInstance is the key of a MemMachine's instance; its ID lives in spec.providerID.
	KeyInstance = "instance"
)

// TagCluster is the tag every cloud resource of a cluster carries, with value "<namespace>/<cluster name>",
// besides the ownership tags of ensure.Exists: cloud.OwnerTagValue(TagCluster) groups a cluster's
// resources in leak reports.
const TagCluster = "memcloud.capkit.io/cluster"

// DefaultPollInterval is how long a step waits before looking again at a booting instance, an updated
// security group or a delete blocked by dependent resources: the requeue of memcloud's reconcilers
// (reconcile.WithPollInterval), which ensure.Exists uses as its poll interval.
const DefaultPollInterval = 5 * time.Second

// SubnetKey returns the resource key of the subnet named name: KeySubnetPrefix and the name, shortened with
// a hash when the key would be longer than a DNS label.
func SubnetKey(name string) string {
	key := KeySubnetPrefix + name
	if len(key) <= 63 {
		return key
	}
	sum := sha256.Sum256([]byte(name))
	return key[:54] + "-" + hex.EncodeToString(sum[:4])
}

// ClusterTagValue returns the value of TagCluster for the cluster named cluster in namespace.
func ClusterTagValue(namespace, cluster string) string { return namespace + "/" + cluster }

// clusterTags returns the Ensure option that tags a resource with its cluster (TagCluster).
func clusterTags(namespace, cluster string) ensure.Option {
	return ensure.WithTags(map[string]string{TagCluster: ClusterTagValue(namespace, cluster)})
}

// clusterSpec returns the spec of mc defaulted as the webhook does, so that the services work without the
// webhook too; mc is not changed.
func clusterSpec(mc *v1beta2.MemCluster) v1beta2.MemClusterSpec {
	spec := *mc.Spec.DeepCopy()
	webhooks.DefaultMemClusterSpec(&spec)
	return spec
}

// machineSpec returns the spec of mm defaulted as the webhook does; mm is not changed.
func machineSpec(mm *v1beta2.MemMachine) v1beta2.MemMachineSpec {
	spec := *mm.Spec.DeepCopy()
	webhooks.DefaultMemMachineSpec(&spec)
	return spec
}

// failureDomains turns the names of spec.failureDomains into contract failure domains, all suitable for
// control plane machines, sorted by name as capkit's scopes and contract accessors write them. The names are
// unique and not empty: the CRD makes spec.failureDomains a set of DNS labels.
func failureDomains(names []string) []contract.FailureDomain {
	out := make([]contract.FailureDomain, 0, len(names))
	for _, n := range slices.Sorted(slices.Values(names)) {
		out = append(out, contract.FailureDomain{Name: n, ControlPlane: ptr.To(true)})
	}
	return out
}
