package services

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"k8s.io/utils/ptr"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/vspherecloud/api/v1beta2"
	"github.com/capkit/capkit/examples/vspherecloud/cloud"
	"github.com/capkit/capkit/ipam"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
)

// The services of this package plug into capkit's reconcilers without glue.
var (
	_ reconcile.Service[scope.ClusterScoper[*v1beta2.VSphereCluster]] = (*VCenter)(nil)
	_ reconcile.Service[scope.MachineScoper[*v1beta2.VSphereMachine]] = (*Machine)(nil)
)

var errNilSessions = errors.New("sessions must not be nil")

// VCenter is the step of a VSphereCluster: it logs in to the vCenter, finds the compute clusters (and datastores
// and networks) of spec.failureDomains and reports them in status.failureDomains, sets spec.controlPlaneEndpoint to
// an address of spec.virtualIP's pool when it is not given, and marks the cluster provisioned once the endpoint is
// set. It creates nothing in the vCenter; its delete releases the virtual IP's address and forgets the session.
type VCenter struct {
	sessions *Sessions
	claimer  ipam.AddressClaimer
}

// VCenterOption configures NewVCenter.
type VCenterOption func(*VCenter)

// WithAddressClaimer makes the step claim the address of spec.virtualIP through c (capkit's *ipam.Claimer on the
// manager's client). Without it, a VSphereCluster with spec.virtualIP and no endpoint fails with a terminal error.
func WithAddressClaimer(c ipam.AddressClaimer) VCenterOption {
	return func(v *VCenter) { v.claimer = c }
}

// NewVCenter returns the VSphereCluster's step on sessions.
func NewVCenter(sessions *Sessions, opts ...VCenterOption) (*VCenter, error) {
	if sessions == nil {
		return nil, fmt.Errorf("cannot create the vCenter service: %w", errNilSessions)
	}
	v := &VCenter{sessions: sessions}
	for _, o := range opts {
		if o != nil {
			o(v)
		}
	}
	return v, nil
}

// Reconcile logs in, reports the failure domains, makes the endpoint from the virtual IP if needed and marks the
// cluster provisioned.
func (v *VCenter) Reconcile(ctx context.Context, s scope.ClusterScoper[*v1beta2.VSphereCluster]) (step.Result, error) {
	vc := s.InfraCluster()
	if !vc.Spec.ControlPlaneEndpoint.IsValid() && vc.Spec.VirtualIP == nil {
		return step.Result{}, step.Terminal(conditions.ReasonInvalidParameters,
			errors.New("spec.controlPlaneEndpoint or spec.virtualIP must be set: vspherecloud does not make an endpoint otherwise"))
	}
	c, err := v.sessions.Client(ctx, vc)
	if err != nil {
		return step.Result{}, err
	}
	fds, err := failureDomains(ctx, c, vc)
	if err != nil {
		return step.Result{}, err
	}
	vc.SetFailureDomains(fds)
	if res, err := v.endpoint(ctx, s); err != nil || !res.Done {
		return res, err
	}
	vc.SetProvisioned(true)
	return step.Result{Done: true}, nil
}

// Delete releases the address of spec.virtualIP; there is nothing to delete in the vCenter. A cluster without
// spec.virtualIP makes no request: its CRDs need not include Cluster API's IPAM kinds. (A claim of a virtual IP
// removed from the spec is the garbage collector's: the VSphereCluster owns it.) Once that is done it forgets the
// cluster's session (Sessions.Forget): logged out unless another cluster uses it. A failed logout is an error, and
// the next reconcile's Forget is a no-op: the session is dropped all the same.
func (v *VCenter) Delete(ctx context.Context, s scope.ClusterScoper[*v1beta2.VSphereCluster]) (step.Result, error) {
	if v.claimer != nil && s.InfraCluster().Spec.VirtualIP != nil {
		res, err := v.claimer.Unclaim(ctx, s.InfraCluster(), virtualIPRequests(s.InfraCluster()))
		if err != nil || !res.Done {
			return res, err
		}
	}
	if err := v.sessions.Forget(ctx, s.InfraCluster()); err != nil {
		return step.Result{}, fmt.Errorf("cannot forget the session of VSphereCluster %q: %w", s.InfraCluster().Name, err)
	}
	return step.Result{Done: true}, nil
}

// failureDomains finds the inventory of each of vc's spec.failureDomains and returns them for status.failureDomains,
// nil when there are none. A missing compute cluster, datastore or network is terminal (ReasonInventoryNotFound)
// until the spec changes: the error names the failure domain and the object.
func failureDomains(ctx context.Context, c *cloud.Client, vc *v1beta2.VSphereCluster) ([]contract.FailureDomain, error) {
	var out []contract.FailureDomain
	for i, fd := range vc.Spec.FailureDomains {
		z := Zone(fd)
		if err := c.FindZone(ctx, vc.Spec.Datacenter, z); err != nil {
			err = fmt.Errorf("cannot place spec.failureDomains[%d] %q: %w", i, fd.Name, err)
			if errors.Is(err, cloud.ErrInventoryNotFound) {
				return nil, step.Terminal(ReasonInventoryNotFound, err)
			}
			return nil, err
		}
		attrs := map[string]string{AttributeComputeCluster: z.ComputeCluster}
		for k, v := range map[string]string{AttributeDatastore: z.Datastore, AttributeNetwork: z.Network} {
			if v != "" {
				attrs[k] = v
			}
		}
		out = append(out, contract.FailureDomain{Name: fd.Name, ControlPlane: cmp.Or(fd.ControlPlane, ptr.To(true)), Attributes: attrs})
	}
	return out, nil
}

// The attributes of a failure domain in status.failureDomains: its spec's inventory.
const (
	AttributeComputeCluster = "computeCluster"
	AttributeDatastore      = "datastore"
	AttributeNetwork        = "network"
)

// Zone returns the inventory of failure domain fd.
func Zone(fd v1beta2.VSphereFailureDomain) cloud.Zone {
	return cloud.Zone{ComputeCluster: fd.ComputeCluster, Datastore: fd.Datastore, Network: fd.Network}
}
