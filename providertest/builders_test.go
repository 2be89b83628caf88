package providertest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/lint"
	"github.com/capkit/capkit/providertest"
)

var memClusterGVK = schema.GroupVersionKind{Group: "infrastructure.example.io", Version: "v1alpha1", Kind: "MemCluster"}
var memMachineGVK = schema.GroupVersionKind{Group: "infrastructure.example.io", Version: "v1alpha1", Kind: "MemMachine"}

func TestClusterBuilderBothCoreVersions(t *testing.T) {
	tests := []struct {
		version  contract.Version
		ref      map[string]any
		provPath []string
	}{
		{contract.V1Beta2, map[string]any{"apiGroup": "infrastructure.example.io", "kind": "MemCluster", "name": "c1"},
			[]string{"status", "initialization", "infrastructureProvisioned"}},
		{contract.V1Beta1, map[string]any{"apiVersion": "infrastructure.example.io/v1alpha1", "kind": "MemCluster", "name": "c1", "namespace": "ns"},
			[]string{"status", "infrastructureReady"}},
	}
	for _, tc := range tests {
		t.Run(string(tc.version), func(t *testing.T) {
			c := providertest.NewCluster("ns", "c1").WithAPIVersion(tc.version).WithInfraRef(memClusterGVK, "c1").
				WithControlPlaneRef(schema.GroupVersionKind{Group: "controlplane.cluster.x-k8s.io", Version: "v1beta2", Kind: "KubeadmControlPlane"}, "cp").
				Paused().WithControlPlaneEndpoint("api.example.com", 6443).WithLabels(map[string]string{"a": "b"}).
				WithAnnotations(map[string]string{"n": "v"}).InfrastructureProvisioned().Build()
			assert.Equal(t, "cluster.x-k8s.io/"+string(tc.version), c.GetAPIVersion())
			assert.Equal(t, "Cluster", c.GetKind())
			ref, _, _ := unstructured.NestedMap(c.Object, "spec", "infrastructureRef")
			assert.Equal(t, tc.ref, ref)
			paused, _ := contract.Cluster(tc.version).Paused().Get(c)
			assert.True(t, paused)
			ep, err := contract.Cluster(tc.version).ControlPlaneEndpoint().Get(c)
			require.NoError(t, err)
			assert.Equal(t, contract.APIEndpoint{Host: "api.example.com", Port: 6443}, ep)
			prov, _, _ := unstructured.NestedBool(c.Object, tc.provPath...)
			assert.True(t, prov)
			assert.Equal(t, "b", c.GetLabels()["a"])
			assert.Equal(t, "v", c.GetAnnotations()["n"])
			_, hasCP, _ := unstructured.NestedMap(c.Object, "spec", "controlPlaneRef")
			assert.True(t, hasCP)
		})
	}
}

func TestMachineBuilderBothCoreVersions(t *testing.T) {
	tests := []struct {
		version    contract.Version
		ref        map[string]any
		bootstrap  []string
		infraReady []string
	}{
		{contract.V1Beta2, map[string]any{"apiGroup": "infrastructure.example.io", "kind": "MemMachine", "name": "m1"},
			[]string{"status", "initialization", "bootstrapDataSecretCreated"}, []string{"status", "initialization", "infrastructureProvisioned"}},
		{contract.V1Beta1, map[string]any{"apiVersion": "infrastructure.example.io/v1alpha1", "kind": "MemMachine", "name": "m1", "namespace": "ns"},
			[]string{"status", "bootstrapReady"}, []string{"status", "infrastructureReady"}},
	}
	for _, tc := range tests {
		t.Run(string(tc.version), func(t *testing.T) {
			m := providertest.NewMachine("ns", "m1", "c1").WithAPIVersion(tc.version).ControlPlane().
				WithBootstrapSecret("m1-boot").WithVersion("v1.36.3").WithInfraRef(memMachineGVK, "m1").
				WithFailureDomain("z1").WithProviderID("mem://1").WithLabels(map[string]string{"x": "y"}).
				BootstrapDataSecretCreated().InfrastructureProvisioned().Build()
			f := contract.Machine(tc.version)
			assert.True(t, contract.IsControlPlaneMachine(m))
			assert.Equal(t, "c1", contract.ClusterNameOf(m))
			for _, fv := range []struct {
				field contract.Field[string]
				want  string
			}{
				{f.ClusterName(), "c1"}, {f.BootstrapDataSecretName(), "m1-boot"}, {f.Version(), "v1.36.3"},
				{f.FailureDomain(), "z1"}, {f.ProviderID(), "mem://1"},
			} {
				got, err := fv.field.Get(m)
				require.NoError(t, err, fv.field.Path().String())
				assert.Equal(t, fv.want, got, fv.field.Path().String())
			}
			ref, _, _ := unstructured.NestedMap(m.Object, "spec", "infrastructureRef")
			assert.Equal(t, tc.ref, ref)
			for _, p := range [][]string{tc.bootstrap, tc.infraReady} {
				v, _, _ := unstructured.NestedBool(m.Object, p...)
				assert.True(t, v, p)
			}
		})
	}
	worker := providertest.NewMachine("ns", "w", "c1").Build()
	assert.False(t, contract.IsControlPlaneMachine(worker))
	_, found, _ := unstructured.NestedString(worker.Object, "spec", "bootstrap", "dataSecretName")
	assert.False(t, found, "no bootstrap data secret until WithBootstrapSecret")
}

func TestBootstrapSecretFollowsTheContract(t *testing.T) {
	s := providertest.NewBootstrapSecret("ns", "m1", "c1", []byte("#cloud-config\n"))
	assert.Empty(t, lint.CheckBootstrapSecret(s, nil))
	assert.Equal(t, providertest.BootstrapSecretType, s.Type)
	assert.Equal(t, "cloud-config", string(s.Data["format"]))
	r := &recorder{}
	assert.True(t, providertest.AssertBootstrapSecretConformance(r, s, nil))
	s.Data["value"] = nil
	assert.False(t, providertest.AssertBootstrapSecretConformance(r, s, providertest.NewMachine("ns", "m1", "c1").Build()))
	assert.Contains(t, r.String(), "bootstrapsecret.value")
}

func TestBuiltObjectsAreAcceptedByTheAPIServer(t *testing.T) {
	ctx := t.Context()
	ns := env.Namespace(t, "builders")
	for _, v := range []contract.Version{contract.V1Beta1, contract.V1Beta2} {
		c := providertest.NewCluster(ns, "c-"+string(v)).WithAPIVersion(v).WithInfraRef(memClusterGVK, "c").Build()
		require.NoError(t, env.Client.Create(ctx, c))
		m := providertest.NewMachine(ns, "m-"+string(v), c.GetName()).WithAPIVersion(v).WithBootstrapSecret("s").Build()
		m.SetOwnerReferences(append(m.GetOwnerReferences(), providertest.OwnerReference(c, false)))
		require.NoError(t, env.Client.Create(ctx, m))
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(m.GroupVersionKind())
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(m), got))
		require.Len(t, got.GetOwnerReferences(), 1)
		assert.Equal(t, c.GetUID(), got.GetOwnerReferences()[0].UID)
		assert.Nil(t, got.GetOwnerReferences()[0].Controller)
	}
	require.NoError(t, env.Client.Create(ctx, providertest.NewBootstrapSecret(ns, "s", "c", []byte("x"))))
	ctrlRef := providertest.OwnerReference(providertest.NewCluster(ns, "c").Build(), true)
	assert.True(t, *ctrlRef.Controller)
	assert.True(t, *ctrlRef.BlockOwnerDeletion)
}
