package ipam_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/ipam"
	"github.com/capkit/capkit/reconcile/step"
)

// The deprecated Ensure and Release return what they returned before Claim and Unclaim: the names of the claims
// waited for, done, and errors that are not terminal.
func TestDeprecatedEnsureAndRelease(t *testing.T) {
	m := machine("m1", "uid-1")
	reqs := []ipam.Request{{Device: "eth0", Pool: nodes}, {Device: "eth1", Pool: nodes}}
	tests := []struct {
		name        string
		objs        []client.Object
		reqs        []ipam.Request
		wantAddrs   []string
		wantWaiting []string
		wantErr     error
		errText     string
	}{
		{name: "waiting", reqs: reqs, wantWaiting: []string{"m1-eth0-0", "m1-eth1-0"}},
		{name: "allocated", reqs: reqs[:1], wantAddrs: []string{"10.0.0.10/24"},
			objs: []client.Object{withAddressRef(claim("m1-eth0-0", nodes, controllerRef("m1", "uid-1")), "m1-eth0-0"),
				address("m1-eth0-0", nodes, "10.0.0.10", int64(24), "")}},
		{name: "a bad IPAddress", reqs: reqs[:1], wantErr: ipam.ErrInvalid, errText: `cannot use IPAddress "ns/m1-eth0-0" of IPAddressClaim "m1-eth0-0": spec.address "x": not an IP address: invalid`,
			objs: []client.Object{withAddressRef(claim("m1-eth0-0", nodes, controllerRef("m1", "uid-1")), "m1-eth0-0"),
				address("m1-eth0-0", nodes, "x", int64(24), "")}},
		{name: "a bad request", reqs: make([]ipam.Request, 17), wantErr: ipam.ErrInvalid,
			errText: `cannot claim IP addresses for FooMachine "ns/m1": cannot use 17 requests: more than 16: invalid`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl, _ := newClaimer(t, append(tt.objs, m)...)
			addrs, waiting, err := cl.Ensure(t.Context(), m, "c1", tt.reqs)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				assert.EqualError(t, err, tt.errText)
				assert.False(t, step.IsTerminal(err), "not classified")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantWaiting, waiting)
			var got []string
			for _, a := range addrs {
				got = append(got, a.Prefixed().String())
			}
			assert.Equal(t, tt.wantAddrs, got)
		})
	}

	t.Run("release", func(t *testing.T) {
		cl, c := newClaimer(t, m, claim("m1-eth0-0", nodes, controllerRef("m1", "uid-1")))
		done, err := cl.Release(t.Context(), m, reqs)
		require.NoError(t, err)
		assert.True(t, done)
		assert.Nil(t, getClaim(t, c, "m1-eth0-0"))

		_, err = cl.Release(t.Context(), m, make([]ipam.Request, 17))
		require.ErrorIs(t, err, ipam.ErrInvalid)
		assert.EqualError(t, err, `cannot release IP addresses of FooMachine "ns/m1": 17 requests, more than 16: invalid`)
		assert.False(t, step.IsTerminal(err), "not classified")
	})
}
