package lint_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/contract/lint"
	"github.com/capkit/capkit/internal/crdtest"
	"github.com/capkit/capkit/providertest/testenv"
)

// startAPIServer starts kube-apiserver and etcd without any CRD; the test fails (never skips) without binaries.
func startAPIServer(t *testing.T) *testenv.Environment {
	t.Helper()
	assets, err := testenv.AssetsDir()
	if err != nil {
		t.Fatalf("%v: run make test (builds envtest binaries with hack/envtest-binaries.sh)", err)
	}
	env, err := testenv.NewEnvironment(testenv.WithAssets(assets), testenv.WithoutCAPICRDs())
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, env.Stop()) })
	return env
}

// applyCRD creates crd and waits until it can be used (crdtest.WaitUsable), then returns the server's copy.
func applyCRD(ctx context.Context, t *testing.T, c client.Client, crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	require.NoError(t, c.Create(ctx, crd.DeepCopy()), "the API server must accept %s", crd.Name)
	return crdtest.WaitUsable(ctx, t, c, crd.Name)
}

// TestEnvtestContract runs the fixtures and the checkers against a real kube-apiserver: the good CRDs are real
// CRDs that check clean also in the server's (defaulted) form, a v1beta2 InfraCluster written with the contract
// accessors passes the live-object checker, a served version that lacks a status field prunes it, which is
// what crd.served-version-fields warns about, and so does a storage version (crd.storage-version-fields).
func TestEnvtestContract(t *testing.T) {
	env := startAPIServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := env.Client

	t.Run("good CRDs are accepted and check clean on the server", func(t *testing.T) {
		for _, path := range []string{"good/v1beta2/*.yaml", "good/v1beta1/*.yaml", "good/bootstrap/*.yaml"} {
			for kind, crd := range loadCRDs(t, path) {
				server := applyCRD(ctx, t, c, crd)
				assert.Empty(t, lint.CheckCRD(server).Strings(), kind)
				v, apiVersion, err := contract.VersionOf(server)
				require.NoError(t, err, kind)
				assert.Contains(t, []contract.Version{contract.V1Beta1, contract.V1Beta2}, v, kind)
				assert.NotEmpty(t, apiVersion, kind)
			}
		}
	})

	ns := env.Namespace(t, "contract")

	t.Run("v1beta2 InfraCluster status written with the accessors passes the live checker", func(t *testing.T) {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(schema.GroupVersionKind{Group: "infrastructure.example.io", Version: "v1alpha1", Kind: "MemCluster"})
		u.SetNamespace(ns)
		u.SetName("demo")
		f := contract.InfraCluster(contract.V1Beta2)
		require.NoError(t, f.ControlPlaneEndpoint().Set(u, contract.APIEndpoint{Host: "10.0.0.1", Port: 6443}))
		require.NoError(t, c.Create(ctx, u))

		require.NoError(t, f.Provisioned().Set(u, true))
		require.NoError(t, f.FailureDomains().Set(u, []contract.FailureDomain{
			{Name: "zone-b", ControlPlane: ptr.To(false)},
			{Name: "zone-a", ControlPlane: ptr.To(true), Attributes: map[string]string{"rack": "1"}},
		}))
		require.NoError(t, f.Conditions().Set(u, []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Provisioned",
			Message: "", LastTransitionTime: metav1.NewTime(time.Now().Truncate(time.Second)), ObservedGeneration: u.GetGeneration()}}))
		require.NoError(t, c.Status().Update(ctx, u))

		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(u.GroupVersionKind())
		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(u), got))
		assert.Empty(t, lint.CheckInfraCluster(got, contract.V1Beta2).Strings())
		provisioned, err := f.Provisioned().Get(got)
		require.NoError(t, err)
		assert.True(t, provisioned)
		domains, err := f.FailureDomains().Get(got)
		require.NoError(t, err)
		require.Len(t, domains, 2)
		assert.Equal(t, "zone-a", domains[0].Name)
		assert.Equal(t, map[string]string{"rack": "1"}, domains[0].Attributes)

		// The same object read as contract v1beta1 is in the wrong shape: the checker says so.
		assert.NotEmpty(t, lint.CheckInfraCluster(got, contract.V1Beta1))
	})

	t.Run("a served version without a status field prunes it", func(t *testing.T) {
		crd := loadCRDs(t, "bad/crds/served-version-missing-fields.yaml")["PrunedMachine"]
		server := applyCRD(ctx, t, c, crd)
		vs := lint.CheckCRD(server)
		require.Equal(t, []string{lint.RuleCRDServedVersionFields}, vs.Rules(), "the checker predicts the pruning")

		gvk := func(version string) schema.GroupVersionKind {
			return schema.GroupVersionKind{Group: crd.Spec.Group, Version: version, Kind: "PrunedMachine"}
		}
		f := contract.InfraMachine(contract.V1Beta2)
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk("v1alpha2"))
		u.SetNamespace(ns)
		u.SetName("pruned")
		require.NoError(t, f.ProviderID().Set(u, "mem://pruned"))
		require.NoError(t, c.Create(ctx, u))
		require.NoError(t, f.Provisioned().Set(u, true))
		require.NoError(t, c.Status().Update(ctx, u))

		read := func(version string) *unstructured.Unstructured {
			got := &unstructured.Unstructured{}
			got.SetGroupVersionKind(gvk(version))
			require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(u), got))
			return got
		}
		provisioned, err := f.Provisioned().Get(read("v1alpha2"))
		require.NoError(t, err, "stored through v1alpha2")
		assert.True(t, provisioned)
		_, err = f.Provisioned().Get(read("v1alpha1"))
		require.ErrorIs(t, err, contract.ErrFieldNotFound, "reading through v1alpha1 prunes status.initialization")

		// An older client updates status through v1alpha1: the stored object loses status.initialization.
		old := read("v1alpha1")
		require.NoError(t, contract.InfraMachine(contract.V1Beta1).Provisioned().Set(old, true))
		require.NoError(t, c.Status().Update(ctx, old))
		_, err = f.Provisioned().Get(read("v1alpha2"))
		assert.ErrorIs(t, err, contract.ErrFieldNotFound, "status.initialization.provisioned was pruned for good")
	})

	t.Run("a storage version without a contract field prunes it from every object, which the storage rule predicts", func(t *testing.T) {
		crd := loadCRDs(t, "../../../contract/lint/testdata/migration/bad/crds/storage-drops-fields.yaml")["PrunedCluster"]
		server := applyCRD(ctx, t, c, crd)
		require.Equal(t, []string{lint.RuleCRDStorageVersionFields}, lint.CheckCRD(server).Rules(), "the checker predicts the pruning")
		good := loadCRDs(t, "../../../contract/lint/testdata/migration/good/two-versions.yaml")
		require.Len(t, good, 1)
		var goodKind string
		for kind, g := range good {
			goodKind = kind
			require.Empty(t, lint.CheckCRD(applyCRD(ctx, t, c, g)).Strings())
		}

		// Written and read through v1beta2: kept only where the storage version has the field.
		provisionedAfterWrite := func(group, kind string) bool {
			f := contract.InfraCluster(contract.V1Beta2)
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(schema.GroupVersionKind{Group: group, Version: "v1beta2", Kind: kind})
			u.SetNamespace(ns)
			u.SetName(strings.ToLower(kind))
			require.NoError(t, c.Create(ctx, u))
			require.NoError(t, f.Provisioned().Set(u, true))
			require.NoError(t, c.Status().Update(ctx, u))
			got := &unstructured.Unstructured{}
			got.SetGroupVersionKind(u.GroupVersionKind())
			require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(u), got))
			provisioned, err := f.Provisioned().Get(got)
			if errors.Is(err, contract.ErrFieldNotFound) {
				return false
			}
			require.NoError(t, err)
			return provisioned
		}
		assert.False(t, provisionedAfterWrite(crd.Spec.Group, "PrunedCluster"),
			"the storage version v1beta1 has no status.initialization: the API server drops what v1beta2 wrote")
		assert.True(t, provisionedAfterWrite(good[goodKind].Spec.Group, goodKind), "the good CRD's storage version keeps it")
	})
}
