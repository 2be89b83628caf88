package services_test

import (
	"context"
	"errors"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/examples/vspherecloud/api/v1beta2"
	"github.com/capkit/capkit/examples/vspherecloud/services"
	"github.com/capkit/capkit/examples/vspherecloud/vspheretest"
	"github.com/capkit/capkit/ipam"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
	"github.com/capkit/capkit/scope/scopetest"
)

// claimer is an ipam.AddressClaimer that answers with addr once bound, and records what it was asked.
type claimer struct {
	addr    netip.Addr // invalid: the pool has not allocated it yet
	err     error
	claims  [][]ipam.Request
	cluster string
	deleted bool
}

func (c *claimer) Claim(_ context.Context, _ client.Object, cluster string, reqs []ipam.Request) ([]ipam.Address, step.Result, error) {
	c.claims, c.cluster = append(c.claims, reqs), cluster
	switch {
	case c.err != nil:
		return nil, step.Result{}, c.err
	case !c.addr.IsValid():
		return nil, step.Result{Reason: conditions.ReasonWaitingForIPAddresses, Message: "waiting", RequeueAfter: step.DefaultPollInterval}, nil
	}
	return []ipam.Address{{Device: reqs[0].Device, Pool: reqs[0].Pool, Claim: "c1-vip-0", Address: c.addr, Prefix: 24}}, step.Result{Done: true}, nil
}

func (c *claimer) Unclaim(context.Context, client.Object, []ipam.Request) (step.Result, error) {
	c.deleted = true
	return step.Result{Done: true}, nil
}

// TestVirtualIP: a VSphereCluster with spec.virtualIP and no endpoint gets the address of its claim as
// spec.controlPlaneEndpoint, with the port given or 6443, and is provisioned only then; an endpoint given wins
// without a claim; the delete releases the claim.
func TestVirtualIP(t *testing.T) {
	sim := vspheretest.New(t)
	sessions := sessionsOf(secrets(map[string]string{v1beta2.CredentialsUsername: sim.Config.Username, v1beta2.CredentialsPassword: sim.Config.Password}))
	pool := ipam.PoolRef{APIGroup: "ipam.cluster.x-k8s.io", Kind: "InClusterIPPool", Name: "vips"}
	tests := []struct {
		name        string
		claimer     *claimer // nil: the step has none
		noVIP       bool     // the VSphereCluster has no spec.virtualIP
		port        int32
		given       contract.APIEndpoint
		want        contract.APIEndpoint
		wantClaims  int
		wantPending bool
		wantReason  string
		wantErr     string
	}{
		{name: "the claim's address on the default port", claimer: &claimer{addr: netip.MustParseAddr("10.0.0.100")},
			want: contract.APIEndpoint{Host: "10.0.0.100", Port: 6443}, wantClaims: 1},
		{name: "an IPv6 address on the port given", claimer: &claimer{addr: netip.MustParseAddr("fd00::64")}, port: 8443,
			want: contract.APIEndpoint{Host: "fd00::64", Port: 8443}, wantClaims: 1},
		{name: "the pool has not allocated it yet", claimer: &claimer{}, wantClaims: 1, wantPending: true},
		{name: "the endpoint given wins: no claim", claimer: &claimer{addr: netip.MustParseAddr("10.0.0.100")},
			given: contract.APIEndpoint{Host: "10.0.0.2", Port: 6443}, want: contract.APIEndpoint{Host: "10.0.0.2", Port: 6443}},
		{name: "no virtual IP: no claim, and its delete asks for none", claimer: &claimer{addr: netip.MustParseAddr("10.0.0.100")}, noVIP: true,
			given: contract.APIEndpoint{Host: "10.0.0.2", Port: 6443}, want: contract.APIEndpoint{Host: "10.0.0.2", Port: 6443}},
		{name: "a claim that fails", claimer: &claimer{err: errors.New("claim vips: conflict")}, wantClaims: 1, wantErr: "claim vips: conflict"},
		{name: "no claimer", wantReason: conditions.ReasonInvalidParameters, wantErr: "spec.virtualIP is set but the vCenter service has no IPAM claimer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opts []services.VCenterOption
			if tt.claimer != nil {
				opts = append(opts, services.WithAddressClaimer(tt.claimer))
			}
			v, err := services.NewVCenter(sessions, opts...)
			require.NoError(t, err)
			vc := vsphereCluster(sim)
			vc.Spec.ControlPlaneEndpoint = tt.given
			if !tt.noVIP {
				vc.Spec.VirtualIP = &v1beta2.VirtualIP{PoolRef: pool, Port: tt.port}
			}
			s := &scopetest.FakeClusterScope[*v1beta2.VSphereCluster]{FakeObject: scopetest.FakeObject[*v1beta2.VSphereCluster]{Object: vc,
				Version: contract.V1Beta2, ClusterInfo: scope.ClusterInfo{Name: "cluster-1"}}}
			res, err := v.Reconcile(t.Context(), s)
			if tt.claimer != nil {
				require.Len(t, tt.claimer.claims, tt.wantClaims)
				if tt.wantClaims > 0 {
					assert.Equal(t, []ipam.Request{{Device: services.VirtualIPDevice, Pool: pool}}, tt.claimer.claims[0])
					assert.Equal(t, "cluster-1", tt.claimer.cluster, "the claim names the Cluster, whose pause the IPAM provider respects")
				}
			}
			switch {
			case tt.wantErr != "":
				require.ErrorContains(t, err, tt.wantErr)
				assert.Equal(t, tt.wantReason, step.TerminalReason(err))
				assert.False(t, vc.IsProvisioned())
				return
			case tt.wantPending:
				require.NoError(t, err)
				assert.Equal(t, conditions.ReasonWaitingForIPAddresses, res.Reason)
				assert.False(t, res.Done)
				assert.False(t, vc.IsProvisioned(), "not provisioned without an endpoint")
				assert.Zero(t, vc.Spec.ControlPlaneEndpoint)
				return
			}
			require.NoError(t, err)
			assert.True(t, res.Done)
			assert.True(t, vc.IsProvisioned())
			assert.Equal(t, tt.want, vc.Spec.ControlPlaneEndpoint)

			res, err = v.Delete(t.Context(), s)
			require.NoError(t, err)
			assert.True(t, res.Done)
			assert.Equal(t, !tt.noVIP, tt.claimer.deleted, "the delete releases the claim of a virtual IP")
		})
	}
}
