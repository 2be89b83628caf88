package servicetest_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/internal/docstest/myprovider/api/v1beta2"
	"github.com/capkit/capkit/internal/docstest/myprovider/mycloud"
	"github.com/capkit/capkit/internal/docstest/myprovider/services"
	"github.com/capkit/capkit/providertest/servicetest"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
	"github.com/capkit/capkit/scope/scopetest"
)

// myMachine returns a fake machine scope of a new MyMachine whose ownership key is persisted.
func myMachine(edit ...func(*v1beta2.MyMachine)) *scopetest.FakeMachineScope[*v1beta2.MyMachine] {
	m := &v1beta2.MyMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "m-0"}, Spec: v1beta2.MyMachineSpec{Image: "ubuntu-24.04"}}
	for _, e := range edit {
		e(m)
	}
	return &scopetest.FakeMachineScope[*v1beta2.MyMachine]{
		FakeObject:     scopetest.FakeObject[*v1beta2.MyMachine]{Object: m, OwnershipKeyValue: "key-m-0", ClusterInfo: scope.ClusterInfo{Name: "c1"}},
		MachineInfo:    scope.MachineInfo{Name: "m-0"},
		BootstrapValue: []byte("#cloud-config\nruncmd: [kubeadm join --token abcdef.0123456789abcdef]\n"),
	}
}

// TestVM runs the README's sketch (internal/docstest/myprovider) through servicetest, as the package doc shows:
// the checks every provider must pass (IDs and the provider ID checkpointed, bootstrap data in no error or
// condition) and the sketch's own.
func TestVM(t *testing.T) {
	// snippet:start servicetest
	type fake = *scopetest.FakeMachineScope[*v1beta2.MyMachine]
	newService := func(*testing.T) (reconcile.Service[services.S], *mycloud.Client) {
		c := mycloud.New()
		return services.VM(services.VMs(c)), c
	}
	servicetest.RunMachineCases(t, newService,
		servicetest.MachineCase[*v1beta2.MyMachine, *mycloud.Client]{
			Name:  "creates the VM and records it in spec.providerID at once",
			Scope: myMachine(),
			Want:  servicetest.Outcome{Result: step.Result{Done: true}},
			Check: func(t *testing.T, s fake, c *mycloud.Client) {
				assert.Equal(t, 1, c.Count())
				assert.Equal(t, "mycloud://vm-1", s.Object.Spec.ProviderID)
				require.Len(t, s.Checkpoints(), 1)
				assert.Equal(t, "mycloud://vm-1", s.Checkpoints()[0].Object.Spec.ProviderID, "the checkpoint is spec.providerID")
				assert.True(t, s.Object.IsProvisioned())
				assert.Equal(t, "10.0.0.1", s.Object.Status.Addresses[0].Address)
				assert.Equal(t, 1, s.BootstrapReads)
			},
		},
	)
	// snippet:end servicetest
	servicetest.RunMachineCases(t, newService,
		servicetest.MachineCase[*v1beta2.MyMachine, *mycloud.Client]{
			Name:  "a VM created before a crash is adopted by its tags, not created again",
			Scope: myMachine(),
			Setup: func(t *testing.T, s fake, c *mycloud.Client) {
				tags := ensure.OwnershipTags("key-m-0", services.KeyVM)
				_, err := c.RunVM(context.Background(), "ubuntu-24.04", nil, "lost-token", tags)
				require.NoError(t, err)
			},
			Want: servicetest.Outcome{Result: step.Result{Done: true}},
			Check: func(t *testing.T, s fake, c *mycloud.Client) {
				assert.Equal(t, 1, c.Count())
				assert.Equal(t, "mycloud://vm-1", s.Object.Spec.ProviderID)
				assert.Zero(t, s.BootstrapReads, "an adopted VM needs no spec")
			},
		},
		servicetest.MachineCase[*v1beta2.MyMachine, *mycloud.Client]{
			Name:  "a VM deleted behind the provider's back is never created again",
			Scope: myMachine(func(m *v1beta2.MyMachine) { m.Spec.ProviderID = "mycloud://vm-9" }),
			Want:  servicetest.Outcome{Class: reconcile.ClassTerminal, Reason: conditions.ReasonResourceDeleted},
			Check: func(t *testing.T, _ fake, c *mycloud.Client) { assert.Zero(t, c.Count()) },
		},
		servicetest.MachineCase[*v1beta2.MyMachine, *mycloud.Client]{
			Name:  "an empty image is terminal before any call",
			Scope: myMachine(func(m *v1beta2.MyMachine) { m.Spec.Image = "" }),
			Want:  servicetest.Outcome{Class: reconcile.ClassTerminal, Reason: conditions.ReasonInvalidParameters},
			Check: func(t *testing.T, _ fake, c *mycloud.Client) { assert.Zero(t, c.Count()) },
		},
		servicetest.MachineCase[*v1beta2.MyMachine, *mycloud.Client]{
			Name:   "delete terminates the VM and keeps the provider ID",
			Scope:  myMachine(func(m *v1beta2.MyMachine) { m.Spec.ProviderID = "mycloud://vm-1" }),
			Delete: true,
			Setup: func(t *testing.T, _ fake, c *mycloud.Client) {
				_, err := c.RunVM(context.Background(), "ubuntu-24.04", nil, "t", ensure.OwnershipTags("key-m-0", services.KeyVM))
				require.NoError(t, err)
			},
			Want: servicetest.Outcome{Result: step.Result{Done: true}},
			Check: func(t *testing.T, s fake, c *mycloud.Client) {
				assert.Zero(t, c.Count())
				assert.Equal(t, "mycloud://vm-1", s.Object.Spec.ProviderID)
			},
		},
	)
}
