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

// VCenter is the step of a VSphereCluster: it logs in to the vCenter with the credentials Secret, finds the
// compute clusters (and datastores and networks) of spec.failureDomains and reports them in status.failureDomains,
// and marks the cluster provisioned once spec.controlPlaneEndpoint is set (vspherecloud does not make one). It
// creates nothing in the vCenter, so its delete has nothing to do.
type VCenter struct {
	sessions *Sessions
}

// NewVCenter returns the VSphereCluster's step on sessions.
func NewVCenter(sessions *Sessions) (*VCenter, error) {
	if sessions == nil {
		return nil, fmt.Errorf("cannot create the vCenter service: %w", errNilSessions)
	}
	return &VCenter{sessions: sessions}, nil
}

// Reconcile logs in and marks the cluster provisioned.
func (v *VCenter) Reconcile(ctx context.Context, s scope.ClusterScoper[*v1beta2.VSphereCluster]) (step.Result, error) {
	vc := s.InfraCluster()
	if !vc.Spec.ControlPlaneEndpoint.IsValid() {
		return step.Result{}, step.Terminal(conditions.ReasonInvalidParameters,
			errors.New("spec.controlPlaneEndpoint must be set: vspherecloud does not make one"))
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
	vc.SetProvisioned(true)
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

// Delete has nothing to delete.
func (v *VCenter) Delete(context.Context, scope.ClusterScoper[*v1beta2.VSphereCluster]) (step.Result, error) {
	return step.Result{Done: true}, nil
}
