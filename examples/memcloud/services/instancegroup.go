package services

import (
	"context"
	"errors"
	"fmt"

	"github.com/capkit/capkit/examples/memcloud/api/v1beta2"
	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
)

// KeyInstanceGroup is the key of a MemMachinePool's instance group.
const KeyInstanceGroup = "instance-group"

// PoolScope is the scope the machine pool service works on.
type PoolScope = scope.MachinePoolScoper[*v1beta2.MemMachinePool]

// InstanceGroup is the step of a MemMachinePool: it keeps an instance group in the cluster's worker subnet
// whose size is the MachinePool's spec.replicas, booting new instances with the pool's bootstrap data, and
// records the instances' provider IDs (spec.providerIDList) and their number (status.replicas) on every
// reconcile. The group is created with ensure.Exists (never twice); its size is changed in place, and an
// instance deleted behind memcloud's back is replaced by the next scale.
type InstanceGroup struct {
	base
	lookup NetworkLookup
}

// NewInstanceGroup returns the instance group service of memcloud c; lookup finds the pool's cluster network.
func NewInstanceGroup(c *cloud.Cloud, lookup NetworkLookup) (*InstanceGroup, error) {
	b, err := newBase(c, "instance group")
	if err == nil && lookup == nil {
		err = errors.New("cannot create the instance group service: network lookup must not be nil")
	}
	return &InstanceGroup{base: b, lookup: lookup}, err
}

// Reconcile ensures the group exists with spec.replicas instances and reports them.
func (g *InstanceGroup) Reconcile(ctx context.Context, s PoolScope) (step.Result, error) {
	mp := s.InfraMachinePool()
	net, err := g.lookup.ClusterNetwork(ctx, mp.Namespace, s.Cluster())
	if err != nil {
		return step.Result{}, err
	}
	subnetID := net.SubnetIDs[v1beta2.SubnetRoleWorker]
	if subnetID == "" || net.SecurityGroupID == "" {
		return step.Result{Reason: ReasonWaitingForNetwork, Message: "the worker subnet or security group of the cluster is not recorded yet"}, nil
	}
	size := int(s.MachinePool().Replicas)
	// The bootstrap data is read only when the group must be created.
	desired := ensure.Lazy(func(ctx context.Context) (cloud.InstanceGroupSpec, error) {
		data, _, err := s.BootstrapData(ctx) // secret: never logged, never in an error
		if err != nil {
			return cloud.InstanceGroupSpec{}, err
		}
		return cloud.InstanceGroupSpec{Name: mp.Name, SubnetID: subnetID, Image: poolImage(mp), Flavor: string(poolFlavor(mp)),
			SecurityGroupIDs: []string{net.SecurityGroupID}, UserData: data, Size: size}, nil
	})
	res, err := ensure.Exists(ctx, s, KeyInstanceGroup, g.res.InstanceGroups, desired, clusterTags(mp.Namespace, s.Cluster().Name))
	if err != nil {
		return step.Result{}, err
	}
	if res.ID == "" {
		return res.Result, nil // no group yet: its create operation runs, or the search may still miss it
	}
	group := res.Observed
	if group.Size != size || len(group.Instances) != size {
		if err := wait(ctx); err != nil {
			return step.Result{}, err
		}
		if group, err = g.cloud.ScaleInstanceGroup(ctx, group.ID, size); err != nil {
			return step.Result{}, classifyPoolError(fmt.Errorf("cannot scale instance group %q to %d: %w", res.ID, size, err))
		}
	}
	ids := make([]string, 0, len(group.Instances))
	var instances []v1beta2.PoolInstance
	booting := 0
	for _, inst := range group.Instances {
		ids = append(ids, v1beta2.ProviderID(inst.ID))
		instances = append(instances, v1beta2.PoolInstance{ProviderID: v1beta2.ProviderID(inst.ID), State: string(inst.State), Address: inst.PrivateIP})
		if inst.State != cloud.InstanceRunning {
			booting++
		}
	}
	mp.Status.Instances = instances
	if err := s.SetInstances(ids); err != nil {
		return step.Result{}, err
	}
	if booting > 0 {
		return step.Result{Reason: ReasonInstancePending, Message: fmt.Sprintf("%d of %d instances of group %s are booting", booting, len(ids), group.ID)}, nil
	}
	// No status.observedGeneration: writing spec.providerIDList bumps the generation, so the value would be
	// stale after every scale; the conditions carry the generation they observed.
	mp.SetProvisioned(true)
	return step.Result{Done: true}, nil
}

// Delete deletes the group and its instances.
func (g *InstanceGroup) Delete(ctx context.Context, s PoolScope) (step.Result, error) {
	return g.deleted(s, KeyInstanceGroup)(ensure.Deleted(ctx, s, KeyInstanceGroup, g.res.InstanceGroups))
}

// classifyPoolError makes a quota or parameter error of a scale terminal, as the resource does for creates.
func classifyPoolError(err error) error {
	return classify(err)
}

// poolImage and poolFlavor are the pool's image and flavor, defaulted as the webhook does.
func poolImage(mp *v1beta2.MemMachinePool) string {
	if mp.Spec.Image == "" {
		return v1beta2.DefaultImage
	}
	return mp.Spec.Image
}

func poolFlavor(mp *v1beta2.MemMachinePool) v1beta2.Flavor {
	if mp.Spec.Flavor == "" {
		return v1beta2.DefaultFlavor
	}
	return mp.Spec.Flavor
}
