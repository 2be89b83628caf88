package conversion_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/capkit/capkit/contract/conversion"
	"github.com/capkit/capkit/internal/crdtest"
	"github.com/capkit/capkit/providertest/testenv"
)

const storageGroup = "storage.conversion.capkit.io"

// twoVersionCRD is a CRD of kind with versions v1 and v2 (same schema, conversion None), stored in v1.
func twoVersionCRD(plural, kind string) *apiextensionsv1.CustomResourceDefinition {
	schema := &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
		Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"spec": {Type: "object", XPreserveUnknownFields: ptr.To(true)}}}}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + "." + storageGroup},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: storageGroup, Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: plural, Kind: kind, ListKind: kind + "List"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true, Storage: true, Schema: schema},
				{Name: "v2", Served: true, Storage: false, Schema: schema},
			},
		},
	}
}

// established waits until the API server serves the CRD named name as it was last written.
func established(ctx context.Context, t *testing.T, c client.Client, name string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	return crdtest.WaitUsable(ctx, t, c, name)
}

// switchStorage makes v2 the storage version of the CRD named name, as a release that moves storage does.
func switchStorage(ctx context.Context, t *testing.T, c client.Client, name string) {
	t.Helper()
	crd := established(ctx, t, c, name)
	crd.Spec.Versions[0].Storage, crd.Spec.Versions[1].Storage = false, true
	require.NoError(t, c.Update(ctx, crd))
}

// dropV1 removes version v1 from the CRD named name, as a later release that stops serving it does.
func dropV1(ctx context.Context, c client.Client, name string) error {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := c.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
		return err
	}
	crd.Spec.Versions = crd.Spec.Versions[1:]
	return c.Update(ctx, crd)
}

// listV2 lists the objects of kind at v2.
func listV2(ctx context.Context, c client.Client, kind string) (*unstructured.UnstructuredList, error) {
	l := &unstructured.UnstructuredList{}
	l.SetAPIVersion(storageGroup + "/v2")
	l.SetKind(kind + "List")
	return l, c.List(ctx, l, client.InNamespace("default"))
}

// TestMigrateStorageWithAPIServer switches a CRD's storage version from v1 to v2 on a real kube-apiserver with
// objects stored in v1, migrates them, and drops v1: the API server refuses to drop v1 before the migration
// (status.storedVersions names it), accepts it after, and serves every object. A second CRD, whose
// status.storedVersions is forced to [v2] without migrating, shows what the migration prevents: once v1 is
// dropped, objects still stored in v1 cannot be read.
func TestMigrateStorageWithAPIServer(t *testing.T) {
	assets, err := testenv.AssetsDir()
	if err != nil {
		t.Fatalf("%v: run make test (builds envtest binaries with hack/envtest-binaries.sh)", err)
	}
	env, err := testenv.NewEnvironment(testenv.WithAssets(assets), testenv.WithoutCAPICRDs())
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, env.Stop()) })
	ctx, c := context.Background(), env.Client

	const objects = 7
	for _, kind := range []string{"Widget", "Gadget"} {
		crd := twoVersionCRD(map[string]string{"Widget": "widgets", "Gadget": "gadgets"}[kind], kind)
		require.NoError(t, c.Create(ctx, crd))
		established(ctx, t, c, crd.Name)
		for i := range objects {
			u := &unstructured.Unstructured{}
			u.SetAPIVersion(storageGroup + "/v1")
			u.SetKind(kind)
			u.SetNamespace("default")
			u.SetName(fmt.Sprintf("%s-%d", strings.ToLower(kind), i))
			require.NoError(t, unstructured.SetNestedField(u.Object, int64(i), "spec", "n"))
			require.NoError(t, c.Create(ctx, u))
		}
		switchStorage(ctx, t, c, crd.Name)
		got := established(ctx, t, c, crd.Name)
		assert.ElementsMatch(t, []string{"v1", "v2"}, got.Status.StoredVersions, "%s: objects may be stored in either version", kind)
	}

	widgets := "widgets." + storageGroup
	err = dropV1(ctx, c, widgets)
	require.Error(t, err, "the API server keeps a version that status.storedVersions names")
	assert.Contains(t, err.Error(), "storedVersions")

	n, err := conversion.MigrateStorage(ctx, c, widgets)
	require.NoError(t, err)
	assert.Equal(t, objects, n, "every object rewritten")
	assert.Equal(t, []string{"v2"}, established(ctx, t, c, widgets).Status.StoredVersions)
	n, err = conversion.MigrateStorage(ctx, c, widgets)
	require.NoError(t, err)
	assert.Zero(t, n, "a migrated CRD is left alone")

	require.NoError(t, dropV1(ctx, c, widgets), "after the migration, v1 can go")
	established(ctx, t, c, widgets)
	var l *unstructured.UnstructuredList
	// The API server re-initializes the CRD's storage after the update: the first lists may say so.
	require.NoError(t, wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		l, err = listV2(ctx, c, "Widget")
		return err == nil, nil
	}), "every Widget is stored in v2: %v", err)
	require.Len(t, l.Items, objects)
	for _, u := range l.Items {
		v, _, _ := unstructured.NestedInt64(u.Object, "spec", "n")
		assert.Equal(t, u.GetName(), fmt.Sprintf("widget-%d", v), "the migration changes no field")
	}

	// The control: the same steps without the migration.
	gadgets := "gadgets." + storageGroup
	crd := established(ctx, t, c, gadgets)
	crd.Status.StoredVersions = []string{"v2"}
	require.NoError(t, c.Status().Update(ctx, crd))
	require.NoError(t, dropV1(ctx, c, gadgets))
	established(ctx, t, c, gadgets)
	_, err = listV2(ctx, c, "Gadget")
	require.Error(t, err, "objects stored in a version the CRD no longer has cannot be read")
	assert.Contains(t, err.Error(), "invalid group/version: "+storageGroup+"/v1")
	t.Logf("reading Gadgets stored in the dropped v1: %v", err)
}

// TestMigrateStorageErrors names the CRD in its errors.
func TestMigrateStorageErrors(t *testing.T) {
	_, err := conversion.MigrateStorage(t.Context(), fakeClient(t), "missing.example.com")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `CRD "missing.example.com"`)
}

// fakeClient is a client of an empty API server with apiextensions' types, for the errors.
func fakeClient(t *testing.T) client.Client {
	t.Helper()
	s := runtime.NewScheme()
	require.NoError(t, apiextensionsv1.AddToScheme(s))
	return fake.NewClientBuilder().WithScheme(s).Build()
}
