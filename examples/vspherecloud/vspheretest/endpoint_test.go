package vspheretest_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vmware/govmomi"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/session"
	"github.com/vmware/govmomi/vapi/rest"
	"github.com/vmware/govmomi/vapi/tags"
	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"

	"github.com/capkit/capkit/examples/vspherecloud/cloud"
	"github.com/capkit/capkit/examples/vspherecloud/vspheretest"
)

// An Endpoint counts at the server what a client does, SOAP by method and REST by verb and path, and pins its own
// certificate.
func TestEndpointCountsRequestsAtTheServer(t *testing.T) {
	sim := vspheretest.New(t, vspheretest.WithVAPI())
	e := sim.Endpoint()
	require.NotEqual(t, sim.Config.URL, e.URL)
	c, err := cloud.Connect(t.Context(), cloud.Config{URL: e.URL, Username: sim.Config.Username, Password: sim.Config.Password, Thumbprint: e.Thumbprint})
	require.NoError(t, err, "the endpoint's thumbprint pins its certificate")
	_, err = c.FindVMs(t.Context(), map[string]string{"owner": "none"})
	require.NoError(t, err)
	byKind := e.Requests.ByKind()
	assert.Equal(t, 1, byKind["SOAP RetrieveServiceContent"], byKind)
	assert.Equal(t, 1, byKind["SOAP Login"], byKind)
	assert.Positive(t, byKind["SOAP RetrieveProperties"]+byKind["SOAP RetrievePropertiesEx"], byKind)
	assert.NotContains(t, byKind, "SOAP ?")
	assert.Equal(t, e.Requests.Total(), sumOf(byKind))

	// The REST API is served (WithVAPI), and counted with the object's ID left out.
	u := &url.URL{Scheme: "https", Host: e.URL, Path: "/sdk", User: url.UserPassword(sim.Config.Username, sim.Config.Password)}
	gc, err := govmomi.NewClient(t.Context(), u, true)
	require.NoError(t, err)
	rc := rest.NewClient(gc.Client)
	require.NoError(t, rc.Login(t.Context(), u.User))
	id, err := tags.NewManager(rc).CreateCategory(t.Context(), &tags.Category{Name: "owner", Cardinality: "SINGLE"})
	require.NoError(t, err)
	_, err = tags.NewManager(rc).GetCategory(t.Context(), id)
	require.NoError(t, err)
	byKind = e.Requests.ByKind()
	assert.Equal(t, 1, byKind["REST POST /rest/com/vmware/cis/session"], byKind)
	assert.Equal(t, 1, byKind["REST GET /rest/com/vmware/cis/tagging/category/{id}"], byKind)

	e.Requests.Reset()
	assert.Zero(t, e.Requests.Total())
}

// A client that still holds a connection (a manager stopped without logging out, say) does not keep Close from
// returning.
func TestCloseEndsHeldConnections(t *testing.T) {
	sim, err := vspheretest.Start(vspheretest.WithCloneTime(time.Hour))
	require.NoError(t, err)
	e := sim.Endpoint()
	c, err := cloud.Connect(t.Context(), cloud.Config{URL: e.URL, Username: sim.Config.Username, Password: sim.Config.Password, Insecure: true})
	require.NoError(t, err)
	ref, err := c.Clone(t.Context(), cloud.CloneSpec{Name: "held", Inventory: sim.Inventory})
	require.NoError(t, err)
	waited := make(chan error, 1) // a long poll (WaitForUpdatesEx) holds its connection while the clone is held
	go func() {
		waited <- object.NewTask(c.Vim25(), types.ManagedObjectReference{Type: "Task", Value: ref}).Wait(context.Background())
	}()
	time.Sleep(100 * time.Millisecond) // let the long poll reach the simulator; Close must end it either way

	start := time.Now()
	sim.Close()
	assert.Less(t, time.Since(start), 25*time.Second, "Close is bounded")
	select {
	case err := <-waited:
		assert.Error(t, err, "the held clone, or the connection waiting for it, ends with the simulator")
	case <-time.After(5 * time.Second):
		t.Fatal("a client still waits on the closed simulator")
	}
}

func sumOf(m map[string]int) int {
	n := 0
	for kind, v := range m {
		if kind != vspheretest.HandshakeRefused {
			n += v
		}
	}
	return n
}

// OnClone sees a clone before its caller has the task, and SetCloneTime holds the clones that start after it.
func TestOnCloneAndSetCloneTime(t *testing.T) {
	sim := vspheretest.New(t)
	var seen []string
	sim.OnClone(func(name string) { seen = append(seen, name) })
	sp := cloud.CloneSpec{Name: "quick", Inventory: sim.Inventory}
	ref, err := sim.Client.Clone(t.Context(), sp)
	require.NoError(t, err)
	require.NoError(t, sim.WaitTask(ref))
	assert.Equal(t, 1, sim.VMs(t))

	sim.SetCloneTime(time.Minute)
	sp.Name = "held"
	ref, err = sim.Client.Clone(t.Context(), sp)
	require.NoError(t, err)
	task, err := sim.Client.Task(t.Context(), ref)
	require.NoError(t, err)
	assert.False(t, task.Done, "held for a minute of the simulator's clock")
	sim.Advance(time.Minute)
	task, err = sim.Client.Task(t.Context(), ref)
	require.NoError(t, err)
	assert.True(t, task.Done)
	assert.Equal(t, []string{"quick", "held"}, seen)
}

// A govmomi client pinning the endpoint's thumbprint (soap.Client.SetThumbprint, as CAPV's) first refuses its
// certificate, once per new connection; the endpoint counts that apart from the requests. (cloud.Connect pins it in
// the handshake itself, and refuses none.)
func TestEndpointCountsRefusedHandshakes(t *testing.T) {
	sim := vspheretest.New(t)
	e := sim.Endpoint()
	u, err := cloud.ParseURL(e.URL)
	require.NoError(t, err)
	sc := soap.NewClient(u, false)
	sc.SetThumbprint(u.Host, e.Thumbprint)
	vim, err := vim25.NewClient(t.Context(), sc)
	require.NoError(t, err)
	require.NoError(t, session.NewManager(vim).Login(t.Context(), url.UserPassword(sim.Config.Username, sim.Config.Password)))
	require.Eventually(t, func() bool { return e.Requests.ByKind()[vspheretest.HandshakeRefused] > 0 }, 5*time.Second, 10*time.Millisecond)
	assert.Equal(t, 2, e.Requests.Total(), "RetrieveServiceContent and Login; the refused handshake is no request")
}
