package cloud_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/examples/memcloud/cloud"
	"github.com/capkit/capkit/examples/memcloud/memcloudtest"
)

func TestInstanceStaticIPs(t *testing.T) {
	ctx := t.Context()
	tests := []struct {
		name    string
		taken   []string // static addresses of an instance created first
		static  []string
		want    []string // Instance.StaticIPs
		wantErr error
		errText string
	}{
		{name: "none", want: nil},
		{name: "one IPv4", static: []string{"192.168.10.11"}, want: []string{"192.168.10.11"}},
		{name: "IPv4 and IPv6, canonical", static: []string{"192.168.10.11", "2001:DB8::0:1"}, want: []string{"192.168.10.11", "2001:db8::1"}},
		{name: "IPv4-mapped IPv6 is IPv4", static: []string{"::ffff:192.168.10.11"}, want: []string{"192.168.10.11"}},
		{name: "other addresses taken", taken: []string{"192.168.10.12"}, static: []string{"192.168.10.11"}, want: []string{"192.168.10.11"}},
		{name: "not an address", static: []string{"192.168.10.300"}, wantErr: cloud.ErrInvalidParameter, errText: `staticIPs[0] "192.168.10.300" is not an IP address`},
		{name: "a CIDR", static: []string{"192.168.10.11/24"}, wantErr: cloud.ErrInvalidParameter, errText: `staticIPs[0] "192.168.10.11/24"`},
		{name: "with zone", static: []string{"fe80::1%eth0"}, wantErr: cloud.ErrInvalidParameter, errText: `staticIPs[0] "fe80::1%eth0"`},
		{name: "listed twice", static: []string{"192.168.10.11", "::ffff:192.168.10.11"}, wantErr: cloud.ErrInvalidParameter,
			errText: `staticIPs[1] "::ffff:192.168.10.11" is listed twice`},
		{name: "too many", static: []string{"10.9.0.1", "10.9.0.2", "10.9.0.3", "10.9.0.4", "10.9.0.5", "10.9.0.6", "10.9.0.7", "10.9.0.8", "10.9.0.9"},
			wantErr: cloud.ErrInvalidParameter, errText: "at most 8"},
		{name: "in use by another instance", taken: []string{"192.168.10.11"}, static: []string{"192.168.10.12", "192.168.10.11"},
			wantErr: cloud.ErrAddressInUse, errText: `staticIPs[1] "192.168.10.11" is attached to another instance`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			var first *cloud.Instance
			if tt.taken != nil {
				var err error
				first, err = e.c.CreateInstance(ctx, cloud.InstanceSpec{Name: "first", SubnetID: e.subnet.ID, Image: "img", Flavor: "small", StaticIPs: tt.taken})
				require.NoError(t, err)
			}
			before := e.c.StaticIPs()
			inst, err := e.c.CreateInstance(ctx, cloud.InstanceSpec{Name: "i", SubnetID: e.subnet.ID, Image: "img", Flavor: "small", StaticIPs: tt.static})
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				assert.Contains(t, err.Error(), tt.errText)
				assert.Equal(t, before, e.c.StaticIPs(), "a refused create attaches nothing")
				if first != nil {
					assert.NotContains(t, err.Error(), first.ID, "the owner of the address is not named")
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, inst.StaticIPs)
			assert.NotEmpty(t, inst.PrivateIP, "the subnet's private IP stays")
			got, err := e.c.GetInstance(ctx, inst.ID)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got.StaticIPs)
			attached := e.c.StaticIPs()
			for _, a := range tt.want {
				assert.Equal(t, inst.ID, attached[a])
			}

			require.NoError(t, e.c.DeleteInstance(ctx, inst.ID))
			assert.Equal(t, before, e.c.StaticIPs(), "deleting the instance releases its addresses")
			if len(tt.static) > 0 {
				again, err := e.c.CreateInstance(ctx, cloud.InstanceSpec{Name: "again", SubnetID: e.subnet.ID, Image: "img", Flavor: "small", StaticIPs: tt.static})
				require.NoError(t, err, "a released address can be attached again")
				assert.Equal(t, tt.want, again.StaticIPs)
			}
		})
	}
}

func TestInstanceStaticIPsAcrossAccountsAndTokens(t *testing.T) {
	ctx := t.Context()
	c := memcloudtest.NewCloud(t)
	a, err := c.CreateAccount("a")
	require.NoError(t, err)
	b, err := c.CreateAccount("b")
	require.NoError(t, err)
	ctxA, ctxB := cloud.WithCredentials(ctx, a), cloud.WithCredentials(ctx, b)
	subnetA, subnetB := newSubnet(ctxA, t, c, "10.0.1.0/24").ID, newSubnet(ctxB, t, c, "10.0.1.0/24").ID

	spec := cloud.InstanceSpec{Name: "i", SubnetID: subnetA, Image: "img", Flavor: "small", StaticIPs: []string{"192.168.10.11"}, IdempotencyToken: "t1"}
	inst, err := c.CreateInstance(ctxA, spec)
	require.NoError(t, err)
	again, err := c.CreateInstance(ctxA, spec)
	require.NoError(t, err, "a replay with the same token returns the instance, its address is no conflict")
	assert.Equal(t, inst.ID, again.ID)

	other := spec
	other.StaticIPs = []string{"192.168.10.12"}
	_, err = c.CreateInstance(ctxA, other)
	require.ErrorIs(t, err, cloud.ErrTokenMismatch, "the static addresses are part of the request")

	_, err = c.CreateInstance(ctxB, cloud.InstanceSpec{Name: "j", SubnetID: subnetB, Image: "img", Flavor: "small", StaticIPs: []string{"192.168.10.11"}})
	require.ErrorIs(t, err, cloud.ErrAddressInUse, "static addresses are unique in the whole cloud")
	assert.NotContains(t, err.Error(), inst.ID)
	assert.Equal(t, map[string]string{"192.168.10.11": inst.ID}, c.StaticIPs())
}
