package services

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/webhooks"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/scope"
)

// Resource keys: the names under which the services record cloud IDs in status.resources (and tag the
// resources with reconcile.TagResourceKey).
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
// besides the ownership tags of reconcile.Ensure: cloud.OwnerTagValue(TagCluster) groups a cluster's
// resources in leak reports.
const TagCluster = "memcloud.capkit.io/cluster"

// DefaultPollInterval is how long a service waits before looking again at a booting instance or a delete
// blocked by dependent resources.
const DefaultPollInterval = 5 * time.Second

// Option configures the services.
type Option func(*config)

type config struct{ poll time.Duration }

func newConfig(opts []Option) config {
	c := config{poll: DefaultPollInterval}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.poll <= 0 {
		c.poll = DefaultPollInterval
	}
	return c
}

// WithPollInterval sets how long to wait before looking again at a booting instance or a blocked delete
// (default DefaultPollInterval; tests use less).
func WithPollInterval(d time.Duration) Option { return func(c *config) { c.poll = d } }

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

// ClusterTagValue returns the value of TagCluster for the cluster of s.
func ClusterTagValue(s scope.Identity) string { return s.Namespace() + "/" + s.ClusterName() }

func clusterTags(s scope.Identity) reconcile.EnsureOption {
	return reconcile.WithTags(map[string]string{TagCluster: ClusterTagValue(s)})
}

// memCluster returns the MemCluster of a scope with its spec defaulted as the webhook does, so that the
// services work without the webhook too.
func memCluster(s scope.ObjectScoper) (*v1beta2.MemCluster, v1beta2.MemClusterSpec, error) {
	mc, ok := s.Object().(*v1beta2.MemCluster)
	if !ok || mc == nil {
		return nil, v1beta2.MemClusterSpec{}, fmt.Errorf("cannot reconcile %s %s/%s: want a *v1beta2.MemCluster, got %T", s.Kind(), s.Namespace(), s.Name(), s.Object())
	}
	spec := *mc.Spec.DeepCopy()
	webhooks.DefaultMemClusterSpec(&spec)
	return mc, spec, nil
}

// memMachine returns the MemMachine of a scope with its spec defaulted as the webhook does.
func memMachine(s scope.ObjectScoper) (*v1beta2.MemMachine, v1beta2.MemMachineSpec, error) {
	mm, ok := s.Object().(*v1beta2.MemMachine)
	if !ok || mm == nil {
		return nil, v1beta2.MemMachineSpec{}, fmt.Errorf("cannot reconcile %s %s/%s: want a *v1beta2.MemMachine, got %T", s.Kind(), s.Namespace(), s.Name(), s.Object())
	}
	spec := *mm.Spec.DeepCopy()
	webhooks.DefaultMemMachineSpec(&spec)
	return mm, spec, nil
}

// failureDomains turns the names of spec.failureDomains into contract failure domains, all suitable for
// control plane machines.
func failureDomains(names []string) []contract.FailureDomain {
	out := make([]contract.FailureDomain, 0, len(names))
	for _, n := range names {
		cp := true
		out = append(out, contract.FailureDomain{Name: n, ControlPlane: &cp})
	}
	return out
}
