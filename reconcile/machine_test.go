package reconcile_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/reconcile"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/internal/fakecloud"
	"github.com/capkit/capkit/reconcile/step"
	"github.com/capkit/capkit/scope"
	"github.com/capkit/capkit/scope/scopetest"
)

// machineScope is what the machine services see: the narrow interface, not the concrete scope.
type machineScope = scope.MachineScoper[*testtypes.FooMachine]

const bootstrapSecret = "#cloud-config\nSUPER-SECRET-JOIN-TOKEN\n"

// newFooMachine creates a Cluster (infrastructure provisioned or not), a Machine (with a bootstrap data
// secret name or not) and its FooMachine.
func newFooMachine(t *testing.T, ns string, infraReady bool, dataSecret string) *testtypes.FooMachine {
	t.Helper()
	createCluster(t, ns, "c1", func(u *unstructured.Unstructured) {
		_ = unstructured.SetNestedField(u.Object, infraReady, "status", "initialization", "infrastructureProvisioned")
	})
	return addFooMachine(t, ns, "m1", dataSecret)
}

// createBootstrapSecret creates the bootstrap data Secret name, holding bootstrapSecret.
func createBootstrapSecret(t *testing.T, ns, name string) {
	t.Helper()
	require.NoError(t, env.Client.Create(t.Context(), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Data: map[string][]byte{"value": []byte(bootstrapSecret)}}))
}

// addFooMachine creates a Machine name of Cluster c1 (with a bootstrap data secret name or not) and its FooMachine.
func addFooMachine(t *testing.T, ns, name, dataSecret string) *testtypes.FooMachine {
	t.Helper()
	ctx := t.Context()
	machine := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Machine",
		"metadata": map[string]any{"namespace": ns, "name": name, "labels": map[string]any{contract.ClusterNameLabel: "c1"}},
		"spec": map[string]any{"clusterName": "c1", "bootstrap": map[string]any{"dataSecretName": dataSecret},
			"infrastructureRef": map[string]any{"apiGroup": testtypes.GroupVersion.Group, "kind": "FooMachine", "name": name}},
	}}
	if dataSecret == "" {
		unstructured.RemoveNestedField(machine.Object, "spec", "bootstrap", "dataSecretName")
	}
	require.NoError(t, env.Client.Create(ctx, machine))
	obj := &testtypes.FooMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
		Labels:          map[string]string{contract.ClusterNameLabel: "c1"},
		OwnerReferences: []metav1.OwnerReference{ownerRef(machine)}}}
	require.NoError(t, env.Client.Create(ctx, obj))
	return obj
}

type machineFixture struct {
	cloud *fakecloud.Cloud
	cc    *scopetest.CountingClient
	rec   *fakecloud.Recorder
	r     *reconcile.MachineReconciler[*testtypes.FooMachine]
	calls int
	// inProviderID makes the service keep the VM's ID in spec.providerID (scope.ProviderIDTracker) instead of
	// status.resources.
	inProviderID bool
}

// tracker is where the service keeps the VM's ID.
func (f *machineFixture) tracker(s machineScope) (scope.ResourceTracker, error) {
	if !f.inProviderID {
		return s, nil
	}
	return scope.ProviderIDTracker(s, s.InfraMachine(), "vm", func(id string) string { return "foo://" + id },
		func(pid string) (string, error) { return strings.TrimPrefix(pid, "foo://"), nil })
}

func newMachineFixture(t *testing.T, opts ...reconcile.Option) *machineFixture {
	f := &machineFixture{cloud: fakecloud.New(), cc: scopetest.NewCountingClient(env.Client), rec: &fakecloud.Recorder{}}
	vm := reconcile.ServiceFuncs[machineScope]{
		ReconcileFunc: func(ctx context.Context, s machineScope) (step.Result, error) {
			f.calls++
			m := s.InfraMachine()
			tr, err := f.tracker(s)
			if err != nil {
				return step.Result{}, err
			}
			if m.IsProvisioned() {
				_, err := ensure.Exists(ctx, tr, "vm", f.cloud, ensure.Given(fakecloud.Spec{CIDR: "x"}))
				return step.Result{Done: err == nil}, err
			}
			data, _, err := s.BootstrapData(ctx)
			if err != nil {
				return step.Result{}, step.Terminal("BootstrapDataInvalid", err)
			}
			if len(data) == 0 {
				return step.Result{}, fmt.Errorf("no data")
			}
			res, err := ensure.Exists(ctx, tr, "vm", f.cloud, ensure.Given(fakecloud.Spec{CIDR: "x"}))
			if err != nil {
				return step.Result{}, err
			}
			m.SetProviderID("foo://" + res.ID)
			m.Status.Addresses = []contract.MachineAddress{{Type: contract.MachineInternalIP, Address: "10.0.0.5"}}
			m.SetProvisioned(true)
			return step.Result{Done: true}, nil
		},
	}
	r, err := reconcile.NewMachineReconcilerFor(f.cc, &testtypes.FooMachine{},
		[]reconcile.Step[machineScope]{{Name: "VM", Service: vm}},
		append([]reconcile.Option{reconcile.WithEventRecorder(f.rec), reconcile.WithScopeOptions(scope.WithContractVersion(contract.V1Beta2))}, opts...)...)
	require.NoError(t, err)
	f.r = r
	return f
}

// TestMachineReconcileProvisionsWithinWriteBudget: the API writes of provisioning a machine, by where its VM's ID
// is kept and what its cloud declares; a no-op reconcile writes nothing either way.
//
// With the ID in status.resources, a cloud that declares its immediate search costs 4 writes: finalizer and
// ownership key; the checkpoint of the ID (status); spec.providerID; the final status. One that declares nothing
// (ensure's careful default) costs 3 more: the note of the create is persisted before the cloud is called (a
// metadata patch, and a status patch for what the reconcile changed in status so far, Paused=False), and the
// checkpoint of the ID clears the note (a metadata patch besides its status patch).
//
// With the ID in spec.providerID (scope.ProviderIDTracker) the checkpoint is the spec patch and the final status
// the only other write: 3 writes, and exactly one more, the note, when the cloud declares nothing; the checkpoint's
// spec patch clears the note with it.
func TestMachineReconcileProvisionsWithinWriteBudget(t *testing.T) {
	immediate := fakecloud.New().Declared
	tests := []struct {
		name         string
		declared     ensure.Guarantees
		inProviderID bool
		wantWrites   int
		wantNoted    bool // the create was noted on the object before the cloud was called
	}{
		{name: "tokens and an immediate search, ID in status", declared: immediate, wantWrites: 4},
		{name: "nothing declared, ID in status", wantWrites: 4 + 3, wantNoted: true},
		{name: "tokens and an immediate search, ID in spec.providerID", declared: immediate, inProviderID: true, wantWrites: 3},
		{name: "nothing declared, ID in spec.providerID", inProviderID: true, wantWrites: 3 + 1, wantNoted: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := env.Namespace(t, "rec")
			ctx := t.Context()
			createBootstrapSecret(t, ns, "m1-data")
			obj := newFooMachine(t, ns, true, "m1-data")
			f := newMachineFixture(t)
			f.cloud.Declared, f.inProviderID = tt.declared, tt.inProviderID
			noted := false
			f.cloud.BeforeCall = func(method string) error {
				if method == "Create" {
					_, noted = get(t, &testtypes.FooMachine{ObjectMeta: obj.ObjectMeta}).Annotations[scope.PendingAnnotationPrefix+"vm"]
				}
				return nil
			}

			_, err := f.r.Reconcile(ctx, req(obj))
			require.NoError(t, err)
			assert.Equal(t, tt.wantWrites, f.cc.Writes(), "%v", f.cc.Log())
			assert.Equal(t, tt.wantNoted, noted, "the create was noted before it was called")
			got := get(t, &testtypes.FooMachine{ObjectMeta: obj.ObjectMeta})
			assert.NotContains(t, got.Annotations, scope.PendingAnnotationPrefix+"vm", "the checkpoint of the ID clears the note")
			assert.Equal(t, "foo://net-1", got.Spec.ProviderID)
			require.NotNil(t, got.Status.Initialization)
			assert.True(t, *got.Status.Initialization.Provisioned)
			assert.True(t, conditions.IsTrue(got, conditions.Ready))

			f.cc.Reset()
			_, err = f.r.Reconcile(ctx, req(obj))
			require.NoError(t, err)
			assert.Zero(t, f.cc.Writes(), "a no-op reconcile of a provisioned machine writes nothing: %v", f.cc.Log())
			assert.Equal(t, 1, f.cloud.Count())
		})
	}
}

func TestMachineReconcileWaits(t *testing.T) {
	tests := []struct {
		name       string
		infraReady bool
		dataSecret string
		wantReason string
	}{
		{name: "cluster infrastructure", infraReady: false, dataSecret: "d", wantReason: conditions.ReasonWaitingForClusterInfrastructure},
		{name: "bootstrap data", infraReady: true, wantReason: conditions.ReasonWaitingForBootstrapData},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := env.Namespace(t, "rec")
			obj := newFooMachine(t, ns, tt.infraReady, tt.dataSecret)
			f := newMachineFixture(t)
			res, err := f.r.Reconcile(t.Context(), req(obj))
			require.NoError(t, err)
			assert.Zero(t, res)
			assert.Zero(t, f.calls, "no service runs")
			assert.Empty(t, f.cloud.Calls)
			got := get(t, &testtypes.FooMachine{ObjectMeta: obj.ObjectMeta})
			assert.NotEmpty(t, got.Finalizers, "the finalizer is added before waiting")
			assert.Equal(t, tt.wantReason, conditions.GetReason(got, "VMReady"))
		})
	}
}

func TestMachineReconcileOwnerMissing(t *testing.T) {
	ns := env.Namespace(t, "rec")
	obj := &testtypes.FooMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "orphan"}}
	require.NoError(t, env.Client.Create(t.Context(), obj))
	f := newMachineFixture(t)
	res, err := f.r.Reconcile(t.Context(), req(obj))
	require.NoError(t, err)
	assert.Zero(t, res)
	assert.Zero(t, f.cc.Writes())
}

func TestBootstrapDataNeverLeaks(t *testing.T) {
	ns := env.Namespace(t, "rec")
	ctx := t.Context()
	// Malformed: the format is not one Cluster API defines. The reconcile fails terminally.
	require.NoError(t, env.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "m1-data"},
		Data: map[string][]byte{"value": []byte(bootstrapSecret), "format": []byte("SUPER-SECRET-JOIN-TOKEN")}}))
	obj := newFooMachine(t, ns, true, "m1-data")
	f := newMachineFixture(t)
	var logs bytes.Buffer
	logger := funcr.New(func(prefix, args string) { logs.WriteString(prefix + " " + args + "\n") }, funcr.Options{Verbosity: 10})
	_, err := f.r.Reconcile(ctrl.LoggerInto(ctx, logger), req(obj))
	require.NoError(t, err, "terminal errors are not retried")
	got := get(t, &testtypes.FooMachine{ObjectMeta: obj.ObjectMeta})
	assert.Equal(t, "BootstrapDataInvalid", conditions.GetReason(got, "VMReady"))
	for what, text := range map[string]string{
		"logs": logs.String(), "events": strings.Join(f.rec.All(), "\n"), "conditions": fmt.Sprint(got.Status.Conditions),
	} {
		assert.NotContains(t, text, "SUPER-SECRET", what)
	}
	assert.Contains(t, logs.String(), "terminal error", "the reconciler did log")
}

func TestMachineReconcileResync(t *testing.T) {
	ns := env.Namespace(t, "rec")
	ctx := t.Context()
	createBootstrapSecret(t, ns, "m1-data")
	obj := newFooMachine(t, ns, true, "m1-data")

	res, err := newMachineFixture(t).r.Reconcile(ctx, req(obj))
	require.NoError(t, err)
	assert.Zero(t, res.RequeueAfter, "without a resync period a provisioned machine waits for its next event")

	f := newMachineFixture(t, reconcile.WithResyncPeriod(time.Minute))
	for range 2 {
		res, err := f.r.Reconcile(ctx, req(obj))
		require.NoError(t, err)
		assert.GreaterOrEqual(t, res.RequeueAfter, time.Minute, "a done reconcile comes back to look at the cloud")
		assert.LessOrEqual(t, res.RequeueAfter, time.Minute+6*time.Second, "with at most 10% jitter")
	}
	assert.Equal(t, 1, f.cloud.Count(), "looking again creates nothing")
}
