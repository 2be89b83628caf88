package scope_test

import (
	"bytes"
	"testing"

	"github.com/go-logr/logr/funcr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/scope"
)

func fooMachine(ns, name string) *testtypes.FooMachine {
	return &testtypes.FooMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
}

func TestNewMachineScopeRejectsBadInput(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(testScheme()).Build()
	cluster := newCluster(t, nil, "ns", "c1", "v1beta2", nil)
	tests := []struct {
		name    string
		machine *unstructured.Unstructured
		obj     *testtypes.FooMachine
		wantMsg string
	}{
		{name: "nil machine", obj: fooMachine("ns", "m"), wantMsg: "machine is nil"},
		{name: "Cluster as machine", obj: fooMachine("ns", "m"), machine: cluster, wantMsg: `kind "Cluster"`},
		{name: "machine of another cluster", obj: fooMachine("ns", "m"), machine: newMachine(t, nil, "ns", "m", "v1beta2", "other", nil), wantMsg: `spec.clusterName "other", want "c1"`},
		{name: "nil object", machine: newMachine(t, nil, "ns", "m", "v1beta2", "c1", nil), wantMsg: "InfraMachine is nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scope.NewMachineScope(t.Context(), c, tt.obj, tt.machine, cluster, scope.WithContractVersion(contract.V1Beta2))
			require.ErrorIs(t, err, scope.ErrInvalidInput)
			assert.Contains(t, err.Error(), tt.wantMsg)
		})
	}
}

func TestMachineScopeFacts(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(testScheme()).Build()
	cluster := newCluster(t, nil, "ns", "c1", "v1beta1", map[string]any{"paused": false})
	_ = unstructured.SetNestedField(cluster.Object, true, "status", "infrastructureReady")
	machine := newMachine(t, nil, "ns", "m1", "v1beta1", "c1", map[string]any{
		"version": "v1.34.1", "failureDomain": "az2", "bootstrap": map[string]any{"dataSecretName": "m1-bootstrap"}})
	machine.SetLabels(map[string]string{contract.ControlPlaneLabel: ""})
	obj := fooMachine("ns", "m1")
	obj.Annotations = map[string]string{contract.PausedAnnotation: ""}
	s, err := scope.NewMachineScope(t.Context(), c, obj, machine, cluster, scope.WithContractVersion(contract.V1Beta2))
	require.NoError(t, err)
	assert.Equal(t, scope.MachineInfo{Name: "m1", ControlPlane: true, Version: "v1.34.1", FailureDomain: "az2",
		BootstrapDataSecretName: "m1-bootstrap", Object: machine}, s.Machine())
	assert.Same(t, machine, s.Machine().Object)
	assert.True(t, s.Cluster().InfrastructureProvisioned, "v1beta1 Cluster: status.infrastructureReady")
	assert.False(t, s.Cluster().Paused)
	assert.Equal(t, "c1", s.ClusterName())
	assert.True(t, s.Paused(), "paused annotation on the InfraMachine")
	assert.Same(t, obj, s.InfraMachine())
	assert.Same(t, obj, s.Object())
	assert.Equal(t, "FooMachine", s.Kind())
	assert.Equal(t, contract.V1Beta2, s.ContractVersion())

	require.NoError(t, s.SetProviderID("foo://m1"))
	require.NoError(t, s.SetProvisioned(true))
	require.NoError(t, s.SetAddresses([]contract.MachineAddress{{Type: contract.MachineInternalIP, Address: "10.0.0.1"}}))
	require.NoError(t, s.SetFailureDomain("az2"))
	assert.Equal(t, "foo://m1", obj.Spec.ProviderID, "setters write into the typed object")
	assert.Equal(t, ptr.To(true), obj.Status.Initialization.Provisioned)
	assert.Equal(t, "foo://m1", s.ProviderID())
	assert.True(t, s.Provisioned())
	fd, err := s.FailureDomain()
	require.NoError(t, err)
	assert.Equal(t, "az2", fd)
	addrs, err := s.Addresses()
	require.NoError(t, err)
	assert.Equal(t, []contract.MachineAddress{{Type: contract.MachineInternalIP, Address: "10.0.0.1"}}, addrs)
	assert.Equal(t, addrs, obj.Status.Addresses)
	assert.Equal(t, "az2", obj.Status.FailureDomain)
	assert.ErrorIs(t, s.SetProviderID(""), scope.ErrInvalidInput)
	assert.Equal(t, "foo://m1", s.ProviderID(), "a refused value leaves the field as it was")
	err = s.SetAddresses([]contract.MachineAddress{{Type: contract.MachineInternalIP}})
	assert.ErrorIs(t, err, scope.ErrInvalidInput)
	assert.ErrorContains(t, err, "item 0")
	assert.Len(t, obj.Status.Addresses, 1, "a refused value leaves the field as it was")

	// FooMachine implements conditions.Setter: the scope hands out the object itself.
	assert.Same(t, obj, s.Conditions())
	_, err = conditions.SetTrue(s.Conditions(), "VMReady", "Created", "")
	require.NoError(t, err)
	assert.Len(t, obj.Status.Conditions, 1)
}

const secretData = "#cloud-config\nTOP-SECRET-TOKEN-abc123\n"

func TestBootstrapData(t *testing.T) {
	ns := env.Namespace(t, "scope")
	ctx := t.Context()
	cluster := newCluster(t, env.Client, ns, "c1", "v1beta2", nil)
	secrets := map[string]map[string][]byte{
		"ok":       {"value": []byte(secretData)},
		"ignition": {"value": []byte(secretData), "format": []byte("ignition")},
		"empty":    {"format": []byte("cloud-config")},
		"badfmt":   {"value": []byte(secretData), "format": []byte("TOP-SECRET-TOKEN")},
	}
	for name, data := range secrets {
		require.NoError(t, env.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: data}))
	}
	var logs bytes.Buffer
	logger := funcr.New(func(prefix, args string) { logs.WriteString(prefix + args + "\n") }, funcr.Options{Verbosity: 10})
	tests := []struct {
		secret     string
		wantErr    error
		wantFormat scope.BootstrapFormat
	}{
		{secret: "", wantErr: scope.ErrBootstrapDataNotReady},
		{secret: "absent", wantErr: scope.ErrBootstrapDataNotFound},
		{secret: "empty", wantErr: scope.ErrBootstrapDataMalformed},
		{secret: "badfmt", wantErr: scope.ErrBootstrapDataMalformed},
		{secret: "ok", wantFormat: scope.BootstrapFormatCloudConfig},
		{secret: "ignition", wantFormat: scope.BootstrapFormatIgnition},
	}
	for _, tt := range tests {
		t.Run(tt.secret, func(t *testing.T) {
			machine := newMachine(t, nil, ns, "m-"+tt.secret, "v1beta2", "c1", map[string]any{"bootstrap": map[string]any{"dataSecretName": tt.secret}})
			s, err := scope.NewMachineScope(ctx, env.Client, fooMachine(ns, "m"), machine, cluster,
				scope.WithContractVersion(contract.V1Beta2), scope.WithLogger(logger), scope.WithSecretReader(env.Client))
			require.NoError(t, err)
			s.Logger().Info("reading bootstrap data")
			value, format, err := s.BootstrapData(ctx)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				assert.NotContains(t, err.Error(), "TOP-SECRET", "errors never carry the data")
				assert.Nil(t, value)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, secretData, string(value))
			assert.Equal(t, tt.wantFormat, format)
		})
	}
	assert.Contains(t, logs.String(), "reading bootstrap data")
	assert.NotContains(t, logs.String(), "TOP-SECRET")
}

func TestMachineScopeCloseAfterSpecChangeLeavesNothingToWrite(t *testing.T) {
	ns := env.Namespace(t, "scope")
	ctx := t.Context()
	cluster := newCluster(t, env.Client, ns, "c1", "v1beta2", nil)
	machine := newMachine(t, env.Client, ns, "m1", "v1beta2", "c1", nil)
	obj := fooMachine(ns, "m1")
	require.NoError(t, env.Client.Create(ctx, obj))
	s, err := scope.NewMachineScope(ctx, env.Client, obj, machine, cluster, scope.WithContractVersion(contract.V1Beta2))
	require.NoError(t, err)
	require.NoError(t, s.SetProviderID("foo://1"))
	_, err = conditions.SetTrue(s.Conditions(), "VMReady", "Created", "")
	require.NoError(t, err)
	require.NoError(t, s.Close(ctx))
	assert.Equal(t, int64(2), obj.Generation, "the spec change bumped the generation")
	for _, c := range obj.Status.Conditions {
		assert.Equal(t, int64(2), c.ObservedGeneration, "conditions observe the generation this controller wrote")
	}

	got := &testtypes.FooMachine{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), got))
	s2, err := scope.NewMachineScope(ctx, env.Client, got, machine, cluster, scope.WithContractVersion(contract.V1Beta2))
	require.NoError(t, err)
	_, err = conditions.SetTrue(s2.Conditions(), "VMReady", "Created", "")
	require.NoError(t, err)
	require.NoError(t, s2.SetProviderID("foo://1"))
	changed, err := s2.HasChanges()
	require.NoError(t, err)
	assert.False(t, changed)
}

func TestDeletedObjectPatchIgnoresGone(t *testing.T) {
	ns := env.Namespace(t, "scope")
	ctx := t.Context()
	cluster := newCluster(t, env.Client, ns, "c1", "v1beta2", nil)
	obj := fooCluster(ns, "c1")
	obj.Finalizers = []string{"test.capkit.io"}
	require.NoError(t, env.Client.Create(ctx, obj))
	require.NoError(t, env.Client.Delete(ctx, obj))
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj))
	s, err := scope.NewClusterScope(ctx, env.Client, obj, cluster, scope.WithContractVersion(contract.V1Beta2))
	require.NoError(t, err)
	_, err = conditions.SetTrue(s.Conditions(), conditions.Deleting, "Deleting", "")
	require.NoError(t, err)
	obj.Finalizers = nil
	require.NoError(t, s.Close(ctx), "removing the last finalizer deletes the object; the status patch is skipped")
	err = env.Client.Get(ctx, client.ObjectKeyFromObject(obj), &testtypes.FooCluster{})
	assert.True(t, apierrors.IsNotFound(err), "the object is gone: %v", err)
}

// TestOtherWritersSurviveSpecCheckpoint: another controller writes a condition and a finalizer between this
// scope's read and its spec checkpoint (PatchSpecNow sends no resourceVersion, so it cannot conflict). The
// scope must rebase on the server's response, so that neither its finalizer patch nor its final status
// patch, both guarded by the new resourceVersion, replaces the other writer's entries.
func TestOtherWritersSurviveSpecCheckpoint(t *testing.T) {
	ns := env.Namespace(t, "scope")
	ctx := t.Context()
	cluster := newCluster(t, env.Client, ns, "c1", "v1beta2", nil)
	machine := newMachine(t, env.Client, ns, "m1", "v1beta2", "c1", nil)
	obj := fooMachine(ns, "m1")
	require.NoError(t, env.Client.Create(ctx, obj))
	s, err := scope.NewMachineScope(ctx, env.Client, obj, machine, cluster, scope.WithContractVersion(contract.V1Beta2))
	require.NoError(t, err)

	other := &testtypes.FooMachine{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), other))
	other.Finalizers = append(other.Finalizers, "other.example.com/cleanup")
	require.NoError(t, env.Client.Update(ctx, other))
	_, err = conditions.SetTrue(conditions.ForSlice(&other.Status.Conditions), "OtherReady", "Poked", "")
	require.NoError(t, err)
	require.NoError(t, env.Client.Status().Update(ctx, other))

	require.NoError(t, s.SetProviderID("foo://1"))
	require.NoError(t, s.PatchSpecNow(ctx))
	obj.Finalizers = append(obj.Finalizers, "infrastructure.capkit.io/foomachine")
	_, err = conditions.SetTrue(s.Conditions(), "VMReady", "Created", "")
	require.NoError(t, err)
	require.NoError(t, s.Close(ctx))

	got := &testtypes.FooMachine{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), got))
	assert.Equal(t, "foo://1", got.Spec.ProviderID)
	assert.ElementsMatch(t, []string{"other.example.com/cleanup", "infrastructure.capkit.io/foomachine"}, got.Finalizers)
	setter := conditions.ForSlice(&got.Status.Conditions)
	assert.True(t, conditions.IsTrue(setter, "VMReady"), "this scope's condition is written")
	assert.True(t, conditions.IsTrue(setter, "OtherReady"), "the other writer's condition survives: %v", got.Status.Conditions)
}
