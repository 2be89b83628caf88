package services_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/examples/vspherecloud/cloud"
	"github.com/capkit/capkit/examples/vspherecloud/services"
	"github.com/capkit/capkit/examples/vspherecloud/vspheretest"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/step"
)

// TestVMCreateFailures: what the vCenter refuses is terminal, with the reason a person can act on, and never quotes
// the bootstrap data.
func TestVMCreateFailures(t *testing.T) {
	tests := []struct {
		name       string
		edit       func(*cloud.CloneSpec)
		before     func(t *testing.T, sim *vspheretest.Simulator)
		wantReason string
	}{
		{name: "a template that does not exist", edit: func(s *cloud.CloneSpec) { s.Template = "no-such-template" }, wantReason: services.ReasonInventoryNotFound},
		{name: "a disk smaller than the template's", edit: func(s *cloud.CloneSpec) { s.DiskGiB = 1 }, wantReason: conditions.ReasonInvalidParameters},
		{name: "a name another VM of the folder has", wantReason: services.ReasonVMNameTaken, before: func(t *testing.T, sim *vspheretest.Simulator) {
			other := validSpec()
			other.Tags = map[string]string{"capkit.io/ownership-key": "someone-else", "capkit.io/resource": services.KeyVM}
			_, err := sim.Client.Clone(t.Context(), other)
			require.NoError(t, err)
			sim.Advance(cloneTime)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMachine(t)
			sim := m.sim
			if tt.before != nil {
				tt.before(t, sim)
			}
			vms := sim.VMs(t)
			spec := validSpec()
			if tt.edit != nil {
				tt.edit(&spec)
			}
			var err error
			for range 20 {
				var out ensure.Result[*cloud.VM]
				out, err = ensure.Exists(t.Context(), m.tr, services.KeyVM, m.res, ensure.Given(spec), m.opts()...)
				if err != nil || out.Result.Done {
					break
				}
				sim.Advance(out.Result.RequeueAfter)
			}
			require.Error(t, err)
			c := reconcile.Classify(reconcile.OpReconcile, step.Result{}, err)
			assert.Equal(t, reconcile.ClassTerminal, c.Class, "%v", err)
			assert.Equal(t, tt.wantReason, c.Reason)
			assert.NotContains(t, err.Error(), "s3cr3t")
			assert.Equal(t, vms, sim.VMs(t), "no VM was created")
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(*cloud.CloneSpec)
		wantErr string
	}{
		{name: "valid", edit: func(*cloud.CloneSpec) {}},
		{name: "a name that is no DNS subdomain", edit: func(s *cloud.CloneSpec) { s.Name = "M_0" }, wantErr: "DNS subdomain"},
		{name: "a name too long for vSphere", edit: func(s *cloud.CloneSpec) { s.Name = string(make([]byte, 81)) }, wantErr: "at most 80"},
		{name: "no folder", edit: func(s *cloud.CloneSpec) { s.Folder = "" }, wantErr: "folder must not be empty"},
		{name: "no template", edit: func(s *cloud.CloneSpec) { s.Template = "" }, wantErr: "template must not be empty"},
		{name: "negative memory", edit: func(s *cloud.CloneSpec) { s.MemoryMiB = -1 }, wantErr: "must not be negative"},
		{name: "no bootstrap data", edit: func(s *cloud.CloneSpec) { s.UserData = nil }, wantErr: "bootstrap data"},
	}
	res := services.NewVMs(nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := validSpec()
			tt.edit(&spec)
			err := res.Validate(spec)
			if tt.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tt.wantErr)
			assert.NotContains(t, err.Error(), "s3cr3t")
		})
	}
}

func TestProviderID(t *testing.T) {
	const id = "421c4b0e-2a2f-4a4c-9a3e-7c1f7c3a6a10"
	assert.Equal(t, "vsphere://"+id, services.ProviderID(id))
	got, err := services.IDFromProviderID(services.ProviderID(id))
	require.NoError(t, err)
	assert.Equal(t, id, got)
	for _, bad := range []string{"", "vsphere://", "vsphere://not-a-uuid", "memcloud://" + id} {
		_, err := services.IDFromProviderID(bad)
		assert.Error(t, err, bad)
	}
}

func TestPending(t *testing.T) {
	p, ok := services.NewVMs(nil).(ensure.PendingReporter[*cloud.VM])
	require.True(t, ok)
	tests := []struct {
		name string
		vm   cloud.VM
		want bool
	}{
		{"running without an address", cloud.VM{PowerState: "poweredOn"}, true},
		{"running with an address", cloud.VM{PowerState: "poweredOn", IPs: []string{"10.0.0.7"}}, false},
		{"powered off", cloud.VM{PowerState: "poweredOff"}, false},
	}
	for _, tt := range tests {
		reason, _, pending := p.Pending(&tt.vm)
		assert.Equal(t, tt.want, pending, tt.name)
		if pending {
			assert.Equal(t, services.ReasonWaitingForIPAddress, reason)
		}
	}
}
