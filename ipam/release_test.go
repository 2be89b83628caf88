package ipam_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/ipam"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/step"
)

func labelled(c *unstructured.Unstructured, owner string) *unstructured.Unstructured {
	c.SetLabels(map[string]string{ipam.OwnerLabel: owner})
	return c
}

// Unclaim deletes every claim the owner controls, found by the requests' names and by the owner label, and no
// other; it needs no Cluster and works after clusterctl move (new owner UID).
func TestUnclaim(t *testing.T) {
	ctx := t.Context()
	m := machine("m1", "uid-after-move")
	old := controllerRef("m1", "uid-before-move")
	other := metav1.OwnerReference{APIVersion: "infrastructure.example.com/v1", Kind: "FooMachine", Name: "m1", UID: "uid-o", Controller: ptr.To(true)}
	cl, c := newClaimer(t, m,
		labelled(claim("m1-eth0-0", nodes, old), "m1"),   // by name and label
		claim("m1-eth1-0", storage, old),                 // by name only: no label
		labelled(claim("m1-eth9-0", nodes, old), "m1"),   // by label only: a request since removed
		claim("m1-eth2-0", nodes, other),                 // a request's name, another controller
		labelled(claim("m1-eth3-0", nodes, other), "m1"), // the label, another controller
	)
	reqs := []ipam.Request{{Device: "eth0", Pool: nodes}, {Device: "eth1", Pool: storage}, {Device: "eth2", Pool: nodes}}

	res, err := cl.Unclaim(ctx, m, reqs)
	require.NoError(t, err)
	assert.Equal(t, step.Result{Done: true}, res)
	for _, name := range []string{"m1-eth0-0", "m1-eth1-0", "m1-eth9-0"} {
		assert.Nil(t, getClaim(t, c, name), name)
	}
	for _, name := range []string{"m1-eth2-0", "m1-eth3-0"} {
		assert.NotNil(t, getClaim(t, c, name), name)
	}

	res, err = cl.Unclaim(ctx, m, reqs)
	require.NoError(t, err)
	assert.Equal(t, step.Result{Done: true}, res, "nothing left")
}

// A claim the IPAM provider still holds with its finalizer keeps Unclaim from being done: its Result names the
// claims left and asks to look again after the reconcile's poll interval.
func TestUnclaimWaitsForFinalizers(t *testing.T) {
	ctx := step.ContextWithEnv(t.Context(), reconcile.NewEnv(nil, reconcile.WithPollInterval(2*time.Second)))
	m := machine("m1", "uid-1")
	held := func(name string) *unstructured.Unstructured {
		c := claim(name, nodes, controllerRef("m1", "uid-1"))
		c.SetFinalizers([]string{"ipam.cluster.x-k8s.io/ReleaseAddress"})
		return c
	}
	tests := []struct {
		name    string
		held    []string
		message string
	}{
		{name: "one claim held", held: []string{"m1-eth0-0"}, message: "waiting for claim m1-eth0-0 to be deleted"},
		{name: "two claims held", held: []string{"m1-eth0-0", "m1-eth2-0"}, message: "waiting for claims m1-eth0-0, m1-eth2-0 to be deleted"},
		{name: "seven claims held", held: []string{"m1-eth0-0", "m1-eth2-0", "m1-eth3-0", "m1-eth4-0", "m1-eth5-0", "m1-eth6-0", "m1-eth7-0"},
			message: "waiting for claims m1-eth0-0, m1-eth2-0, m1-eth3-0, m1-eth4-0, m1-eth5-0 and 2 more to be deleted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := []client.Object{m, claim("m1-eth1-0", nodes, controllerRef("m1", "uid-1"))}
			reqs := []ipam.Request{{Device: "eth1", Pool: nodes}}
			for _, name := range tt.held {
				objs = append(objs, held(name))
				reqs = append(reqs, ipam.Request{Device: strings.Split(name, "-")[1], Pool: nodes})
			}
			cl, c := newClaimer(t, objs...)
			for range 2 {
				res, err := cl.Unclaim(ctx, m, reqs)
				require.NoError(t, err)
				assert.Equal(t, step.Result{Reason: conditions.ReasonReleasingIPAddresses, Message: tt.message, RequeueAfter: 2 * time.Second}, res)
				assert.Equal(t, reconcile.ClassInProgress, reconcile.Classify(reconcile.OpDelete, res, err).Class)
				for _, name := range tt.held {
					got := getClaim(t, c, name)
					require.NotNil(t, got)
					assert.NotNil(t, got.GetDeletionTimestamp())
				}
				assert.Nil(t, getClaim(t, c, "m1-eth1-0"))
			}

			for _, name := range tt.held {
				got := getClaim(t, c, name)
				got.SetFinalizers(nil) // the IPAM provider released the address
				require.NoError(t, c.Update(ctx, got))
			}
			res, err := cl.Unclaim(ctx, m, reqs)
			require.NoError(t, err)
			assert.Equal(t, step.Result{Done: true}, res)
		})
	}
}

// Requests are not checked beyond their number: a bad one has no claim to find. Too many requests and a bad
// owner are terminal errors with ReasonInvalidIPAddress.
func TestUnclaimInputs(t *testing.T) {
	m := machine("m1", "")
	tests := []struct {
		name    string
		owner   client.Object
		reqs    []ipam.Request
		errText string // "" when done
	}{
		{name: "no UID and a bad request: nothing to find", owner: m, reqs: []ipam.Request{{Device: "Not A Label"}}},
		{name: "too many requests", owner: m, reqs: make([]ipam.Request, 17),
			errText: `cannot release IP addresses of FooMachine "ns/m1": 17 requests, more than 16: invalid`},
		{name: "no owner", errText: "cannot use owner: nil object: invalid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl, _ := newClaimer(t, m)
			res, err := cl.Unclaim(t.Context(), tt.owner, tt.reqs)
			if tt.errText == "" {
				require.NoError(t, err)
				assert.Equal(t, step.Result{Done: true}, res)
				return
			}
			require.ErrorIs(t, err, ipam.ErrInvalid)
			assert.ErrorContains(t, err, tt.errText)
			assert.Equal(t, conditions.ReasonInvalidIPAddress, step.TerminalReason(err))
			assert.Equal(t, step.Result{}, res)
		})
	}
}
