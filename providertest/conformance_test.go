package providertest_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/lint"
	"github.com/capkit/capkit/providertest"
)

func TestAssertCRDConformance(t *testing.T) {
	tests := []struct {
		name     string
		paths    []string
		failures []string
	}{
		{name: "conforming folder", paths: []string{"testdata/crds"}},
		{name: "conforming file", paths: []string{"testdata/crds/memcrds.yaml"}},
		{name: "violations listed", paths: []string{"testdata/badcrds"}, failures: []string{
			"crd.status-subresource", "crd.contract-label", "contract violations:\n  - CustomResourceDefinition/",
		}},
		{name: "missing path", paths: []string{"testdata/none"}, failures: []string{`cannot read CRDs in "testdata/none"`}},
		{name: "no CRD", paths: []string{"doc.go"}, failures: []string{"malformed"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{}
			ok := providertest.AssertCRDConformance(r, tc.paths...)
			assert.Equal(t, len(tc.failures) == 0, ok, r.String())
			for _, f := range tc.failures {
				assert.Contains(t, r.String(), f)
			}
		})
	}
}

func TestReadCRDFiles(t *testing.T) {
	crds, err := providertest.ReadCRDFiles("testdata/crds")
	require.NoError(t, err)
	var names []string
	for _, c := range crds {
		names = append(names, c.Name)
	}
	assert.Equal(t, []string{"memclusters.infrastructure.example.io", "memmachines.infrastructure.example.io"}, names)

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ns.yaml"), []byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n"), 0o644))
	_, err = providertest.ReadCRDFiles(dir)
	require.ErrorIs(t, err, providertest.ErrNoCRDs)

	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.yml"), []byte("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: 3\n"), 0o644))
	_, err = providertest.ReadCRDFiles(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "bad.yml")
}

func TestAssertObjectConformance(t *testing.T) {
	good := memMachine(contract.V1Beta2, true)
	require.NoError(t, contract.InfraMachine(contract.V1Beta2).ProviderID().Set(good, "mem://i-1"))
	noID := memMachine(contract.V1Beta2, true)
	cluster := memMachine(contract.V1Beta2, true)
	cluster.SetKind("MemCluster")
	require.NoError(t, contract.InfraCluster(contract.V1Beta2).ControlPlaneEndpoint().Set(cluster, contract.APIEndpoint{Host: "h", Port: 6443}))
	badCond := memMachine(contract.V1Beta1, false, metav1.Condition{Type: "Ready", Status: "Maybe", Reason: "x y"})
	tests := []struct {
		name    string
		obj     *contractObject
		failure string
	}{
		{"provisioned machine with providerID", &contractObject{good, lint.KindInfraMachine, contract.V1Beta2}, ""},
		{"provisioned machine without providerID", &contractObject{noID, lint.KindInfraMachine, contract.V1Beta2}, "inframachine.providerID"},
		{"cluster with endpoint", &contractObject{cluster, lint.KindInfraCluster, contract.V1Beta2}, ""},
		{"invalid v1beta1 condition", &contractObject{badCond, lint.KindInfraMachine, contract.V1Beta1}, "inframachine.conditions"},
		{"bootstrap config", &contractObject{memMachine(contract.V1Beta2, false), lint.KindBootstrapConfig, contract.V1Beta2}, ""},
		{"template has no live checker", &contractObject{good, lint.KindInfraMachineTemplate, contract.V1Beta2}, "has no live-object checker"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{}
			ok := providertest.AssertObjectConformance(r, tc.obj.u, tc.obj.kind, tc.obj.v)
			assert.Equal(t, tc.failure == "", ok, r.String())
			assert.Contains(t, r.String(), tc.failure)
		})
	}
	r := &recorder{}
	assert.True(t, providertest.AssertObjectConformance(r, memMachine(contract.V1Beta2, true), lint.KindInfraCluster, contract.V1Beta2,
		lint.WithExternalControlPlaneEndpoint()), "options reach the checker: %s", r)
}

type contractObject struct {
	u    *unstructured.Unstructured
	kind lint.Kind
	v    contract.Version
}

// goodCluster is a Go API type in the v1beta2 shape, built from capkit's contract types.
type goodCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		ControlPlaneEndpoint contract.APIEndpoint `json:"controlPlaneEndpoint"`
	} `json:"spec"`
	Status struct {
		Initialization contract.InfraClusterInitialization `json:"initialization,omitempty"`
		FailureDomains []contract.FailureDomain            `json:"failureDomains,omitempty"`
		Conditions     []metav1.Condition                  `json:"conditions,omitempty"`
	} `json:"status"`
}

// oldCluster still has the v1beta1 status.
type oldCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		ControlPlaneEndpoint contract.APIEndpoint `json:"controlPlaneEndpoint"`
	} `json:"spec"`
	Status struct {
		Ready bool `json:"ready"`
	} `json:"status"`
}

func TestAssertTypeConformance(t *testing.T) {
	r := &recorder{}
	assert.True(t, providertest.AssertTypeConformance(r, &goodCluster{}, lint.KindInfraCluster, contract.V1Beta2), r.String())
	assert.False(t, providertest.AssertTypeConformance(r, &oldCluster{}, lint.KindInfraCluster, contract.V1Beta2))
	assert.Contains(t, r.String(), "infracluster.provisioned")
	assert.Contains(t, r.String(), "type *providertest_test.oldCluster")
}

func TestAssertTypesConformance(t *testing.T) {
	tests := []struct {
		name  string
		types map[lint.Kind]any
		want  bool
		msgs  []string
	}{
		{name: "all conform", types: map[lint.Kind]any{lint.KindInfraCluster: &goodCluster{}}, want: true},
		{name: "every type is checked", types: map[lint.Kind]any{lint.KindInfraCluster: &oldCluster{}, lint.KindInfraMachine: &oldCluster{}},
			msgs: []string{"infracluster.provisioned", "inframachine.provisioned"}},
		{name: "one does not", types: map[lint.Kind]any{lint.KindInfraCluster: &goodCluster{}, lint.KindInfraMachine: &oldCluster{}},
			msgs: []string{"inframachine.provisioned"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{}
			assert.Equal(t, tt.want, providertest.AssertTypesConformance(r, contract.V1Beta2, tt.types), r.String())
			for _, m := range tt.msgs {
				assert.Contains(t, r.String(), m)
			}
		})
	}
}
