package services_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/examples/vspherecloud/cloud"
	"github.com/capkit/capkit/examples/vspherecloud/services"
	"github.com/capkit/capkit/examples/vspherecloud/vspheretest"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/scope/scopetest"
)

// The clones of the tests take cloneTime on the simulator's clock, and the resource declares maxCloneTime.
const (
	cloneTime    = 2 * time.Minute
	maxCloneTime = 3 * time.Minute
	poll         = 30 * time.Second
)

// userData is bootstrap data whose text must never appear in an error.
const userData = "#cloud-config\nruncmd: [echo s3cr3t-b00tstrap]\n"

// validSpec is the VM of machine m-0 of the tests.
func validSpec() cloud.CloneSpec {
	return cloud.CloneSpec{Name: "m-0", Inventory: cloud.Inventory{Datacenter: vspheretest.Datacenter, Folder: vspheretest.Folder,
		ResourcePool: vspheretest.ResourcePool, Datastore: vspheretest.Datastore, Network: vspheretest.Network, Template: vspheretest.Template},
		CPUs: 2, MemoryMiB: 4096, DiskGiB: 20, UserData: []byte(userData)}
}

// clusterTags are the tags the tests put on their VMs besides the ownership tags.
var clusterTags = ensure.WithTags(map[string]string{"capkit.io/cluster": "ns/c1"})

// machine is one machine's VM step of the tests, as a controller runs it: ensure.Exists or ensure.Deleted of the
// VM, again after the poll interval while it is not done, with the simulator's clock moving meanwhile.
type machine struct {
	t    *testing.T
	sim  *vspheretest.Simulator
	res  ensure.Resource[cloud.CloneSpec, *cloud.VM]
	tr   *scopetest.Tracker
	spec cloud.CloneSpec
}

// newMachine returns the VM step of a new machine, on a new simulator whose clones take cloneTime.
func newMachine(t *testing.T) *machine {
	sim := vspheretest.New(t, vspheretest.WithCloneTime(cloneTime))
	res := services.NewVMs(sim.Client, services.WithMaxCloneTime(maxCloneTime))
	return &machine{t: t, sim: sim, res: res, tr: scopetest.NewTracker("owner-1"), spec: validSpec()}
}

// another returns the VM step of another machine of m's cluster, on m's simulator and client: its VM is name, its
// ownership key owner.
func (m *machine) another(name, owner string) *machine {
	spec := validSpec()
	spec.Name = name
	return &machine{t: m.t, sim: m.sim, res: m.res, tr: scopetest.NewTracker(owner), spec: spec}
}

// opts are the options of every Exists and Deleted: the simulator's clock, the poll interval.
func (m *machine) opts() []ensure.Option {
	return []ensure.Option{clusterTags, ensure.WithClock(m.sim.Now), ensure.WithPollInterval(poll)}
}

// exists is one reconcile.
func (m *machine) exists(ctx context.Context) (ensure.Result[*cloud.VM], error) {
	return ensure.Exists(ctx, m.tr, services.KeyVM, m.res, ensure.Given(m.spec), m.opts()...)
}

// untilReady reconciles until the step is done; it stands in for guest tools, which report an address once the VM
// runs. It returns the last result and the action that recorded the VM.
func (m *machine) untilReady(ctx context.Context) (ensure.Result[*cloud.VM], ensure.Action) {
	m.t.Helper()
	var recorded ensure.Action
	for range 100 {
		out, err := m.exists(ctx)
		require.NoError(m.t, err)
		if out.ID != "" && recorded == "" {
			recorded = out.Action
		}
		if out.Result.Done {
			return out, recorded
		}
		if out.Result.Reason == services.ReasonWaitingForIPAddress {
			require.NoError(m.t, m.sim.SetGuestIP(out.ID, "10.0.0.7"))
		}
		require.Positive(m.t, out.Result.RequeueAfter, "a step that is not done asks to be called again: %+v", out.Result)
		m.sim.Advance(out.Result.RequeueAfter)
	}
	m.t.Fatal("the VM is not ready after 100 reconciles")
	return ensure.Result[*cloud.VM]{}, ""
}

// untilDeleted reconciles the delete until the step is done, and persists the tracker then.
func (m *machine) untilDeleted(ctx context.Context) {
	m.t.Helper()
	for range 100 {
		res, err := ensure.Deleted(ctx, m.tr, services.KeyVM, m.res, m.opts()...)
		require.NoError(m.t, err)
		if res.Done {
			require.NoError(m.t, m.tr.PatchNow(ctx)) // the scope's Close persists what Deleted forgot
			return
		}
		require.Positive(m.t, res.RequeueAfter, "a step that is not done asks to be called again: %+v", res)
		// The power-off or destroy the step started ends before the requeue, as on a vCenter that is not loaded;
		// vcsim runs it in the background, and the next reconcile must not race it.
		require.NoError(m.t, m.sim.WaitTasks())
		m.sim.Advance(res.RequeueAfter)
	}
	m.t.Fatal("the VM is not deleted after 100 reconciles")
}
