package ipam_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	"github.com/capkit/capkit/ipam"
)

func labelled(c *unstructured.Unstructured, owner string) *unstructured.Unstructured {
	c.SetLabels(map[string]string{ipam.OwnerLabel: owner})
	return c
}

// Release deletes every claim the owner controls, found by the requests' names and by the owner label, and no
// other; it needs no Cluster and works after clusterctl move (new owner UID).
func TestRelease(t *testing.T) {
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

	done, err := cl.Release(ctx, m, reqs)
	require.NoError(t, err)
	assert.True(t, done)
	for _, name := range []string{"m1-eth0-0", "m1-eth1-0", "m1-eth9-0"} {
		assert.Nil(t, getClaim(t, c, name), name)
	}
	for _, name := range []string{"m1-eth2-0", "m1-eth3-0"} {
		assert.NotNil(t, getClaim(t, c, name), name)
	}

	done, err = cl.Release(ctx, m, reqs)
	require.NoError(t, err)
	assert.True(t, done, "nothing left")
}

// A claim the IPAM provider still holds with its finalizer keeps Release from being done.
func TestReleaseWaitsForFinalizers(t *testing.T) {
	ctx := t.Context()
	m := machine("m1", "uid-1")
	held := claim("m1-eth0-0", nodes, controllerRef("m1", "uid-1"))
	held.SetFinalizers([]string{"ipam.cluster.x-k8s.io/ReleaseAddress"})
	cl, c := newClaimer(t, m, held, claim("m1-eth1-0", nodes, controllerRef("m1", "uid-1")))
	reqs := []ipam.Request{{Device: "eth0", Pool: nodes}, {Device: "eth1", Pool: nodes}}

	for range 2 {
		done, err := cl.Release(ctx, m, reqs)
		require.NoError(t, err)
		assert.False(t, done)
		got := getClaim(t, c, "m1-eth0-0")
		require.NotNil(t, got)
		assert.NotNil(t, got.GetDeletionTimestamp())
		assert.Nil(t, getClaim(t, c, "m1-eth1-0"))
	}

	got := getClaim(t, c, "m1-eth0-0")
	got.SetFinalizers(nil) // the IPAM provider released the address
	require.NoError(t, c.Update(ctx, got))
	done, err := cl.Release(ctx, m, reqs)
	require.NoError(t, err)
	assert.True(t, done)
}

func TestReleaseInputs(t *testing.T) {
	ctx := t.Context()
	m := machine("m1", "")
	cl, _ := newClaimer(t, m)

	done, err := cl.Release(ctx, m, []ipam.Request{{Device: "Not A Label"}})
	require.NoError(t, err, "no UID and bad requests are fine: there is nothing to find")
	assert.True(t, done)
	_, err = cl.Release(ctx, m, make([]ipam.Request, 17))
	assert.ErrorIs(t, err, ipam.ErrInvalid)
	_, err = cl.Release(ctx, nil, nil)
	assert.ErrorIs(t, err, ipam.ErrInvalid)
}
