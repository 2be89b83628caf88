package services

import (
	"cmp"
	"context"
	"errors"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/vspherecloud/api/v1beta2"
	"github.com/capkit/capkit/ipam"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
)

// VirtualIPDevice is the device of the virtual IP's address request: its IPAddressClaim is <VSphereCluster>-vip-0.
const VirtualIPDevice = "vip"

// errNoClaimer is the error of a VSphereCluster with a virtual IP on a step without WithAddressClaimer.
var errNoClaimer = step.Terminal(conditions.ReasonInvalidParameters,
	errors.New("spec.virtualIP is set but the vCenter service has no IPAM claimer"))

// virtualIPRequests returns the address request of vc's virtual IP; nil without one.
func virtualIPRequests(vc *v1beta2.VSphereCluster) []ipam.Request {
	if vc.Spec.VirtualIP == nil {
		return nil
	}
	return []ipam.Request{{Device: VirtualIPDevice, Pool: vc.Spec.VirtualIP.PoolRef}}
}

// endpoint sets spec.controlPlaneEndpoint of the cluster of s to the address claimed from spec.virtualIP's pool, with
// its port (v1beta2.DefaultAPIServerPort when unset), unless the endpoint is set. The claim is the same at every
// reconcile (ipam.ClaimName), so the address is too: an endpoint lost before its patch is found again. Until the pool
// allocates the address, it returns Claim's result (ReasonWaitingForIPAddresses).
func (v *VCenter) endpoint(ctx context.Context, s scope.ClusterScoper[*v1beta2.VSphereCluster]) (step.Result, error) {
	vc := s.InfraCluster()
	if vc.Spec.ControlPlaneEndpoint.IsValid() {
		return step.Result{Done: true}, nil
	}
	if v.claimer == nil {
		return step.Result{}, errNoClaimer
	}
	addrs, res, err := v.claimer.Claim(ctx, vc, s.Cluster().Name, virtualIPRequests(vc))
	if err != nil || !res.Done {
		return res, err
	}
	vc.Spec.ControlPlaneEndpoint = contract.APIEndpoint{Host: addrs[0].Address.String(),
		Port: cmp.Or(vc.Spec.VirtualIP.Port, v1beta2.DefaultAPIServerPort)}
	return step.Result{Done: true}, nil
}
