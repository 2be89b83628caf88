package contract

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

func TestVersionFromLabels(t *testing.T) {
	served := []string{"v1alpha4", "v1beta1", "v1beta2"}
	tests := []struct {
		name           string
		labels         map[string]string
		served         []string
		wantVersion    Version
		wantAPIVersion string
		wantErr        error
		wantErrText    []string
	}{
		{name: "v1beta2", labels: map[string]string{"cluster.x-k8s.io/v1beta2": "v1beta2"}, wantVersion: V1Beta2, wantAPIVersion: "v1beta2"},
		{name: "v1beta1 with several API versions", labels: map[string]string{"cluster.x-k8s.io/v1beta1": "v1alpha4_v1beta1"}, wantVersion: V1Beta1, wantAPIVersion: "v1beta1"},
		{name: "newest API version in any order", labels: map[string]string{"cluster.x-k8s.io/v1beta1": "v1beta1_v1alpha4"}, wantVersion: V1Beta1, wantAPIVersion: "v1beta1"},
		{name: "newest contract wins", labels: map[string]string{"cluster.x-k8s.io/v1beta1": "v1beta1", "cluster.x-k8s.io/v1beta2": "v1beta2"}, wantVersion: V1Beta2, wantAPIVersion: "v1beta2"},
		{name: "GA above beta", labels: map[string]string{"cluster.x-k8s.io/v1beta2": "v1beta2_v1"}, served: []string{"v1", "v1beta2"}, wantVersion: V1Beta2, wantAPIVersion: "v1"},
		{name: "other labels ignored", labels: map[string]string{"cluster.x-k8s.io/provider": "infrastructure-mem", "cluster.x-k8s.io/v1beta2": "v1beta2", "app": "x"}, wantVersion: V1Beta2, wantAPIVersion: "v1beta2"},
		{name: "no labels", labels: nil, wantErr: ErrNoContractLabel},
		{name: "no contract label", labels: map[string]string{"cluster.x-k8s.io/provider": "infrastructure-mem"}, wantErr: ErrNoContractLabel},
		{name: "only an old contract", labels: map[string]string{"cluster.x-k8s.io/v1alpha4": "v1alpha4"}, wantErr: ErrUnknownVersion,
			wantErrText: []string{`"cluster.x-k8s.io/v1alpha4"`}},
		{name: "version not served", labels: map[string]string{"cluster.x-k8s.io/v1beta2": "v1beta3"},
			wantErrText: []string{`"cluster.x-k8s.io/v1beta2"`, `"v1beta3"`, "not served"}},
		{name: "one of several not served", labels: map[string]string{"cluster.x-k8s.io/v1beta1": "v1beta1_v1alpha3"},
			wantErrText: []string{`"cluster.x-k8s.io/v1beta1"`, `"v1alpha3"`}},
		{name: "older contract label broken too", labels: map[string]string{"cluster.x-k8s.io/v1beta2": "v1beta2", "cluster.x-k8s.io/v1beta1": "v1beta0"},
			wantErrText: []string{`"cluster.x-k8s.io/v1beta1"`, `"v1beta0"`}},
		{name: "empty value", labels: map[string]string{"cluster.x-k8s.io/v1beta2": ""}, wantErrText: []string{`"cluster.x-k8s.io/v1beta2"`, "empty"}},
		{name: "empty part", labels: map[string]string{"cluster.x-k8s.io/v1beta2": "v1beta1__v1beta2"}, wantErrText: []string{"empty API version"}},
		{name: "nothing served", labels: map[string]string{"cluster.x-k8s.io/v1beta2": "v1beta2"}, served: []string{}, wantErrText: []string{"not served"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := served
			if tt.served != nil {
				s = tt.served
			}
			v, apiVersion, err := VersionFromLabels(tt.labels, s)
			if tt.wantErr != nil || tt.wantErrText != nil {
				require.Error(t, err)
				if tt.wantErr != nil {
					require.ErrorIs(t, err, tt.wantErr)
				}
				for _, text := range tt.wantErrText {
					assert.Contains(t, err.Error(), text)
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantVersion, v)
			assert.Equal(t, tt.wantAPIVersion, apiVersion)
		})
	}
}

func TestVersionLabelKeys(t *testing.T) {
	tests := []struct {
		name   string
		labels map[string]string
		want   []string
	}{
		{name: "none", labels: nil, want: nil},
		{name: "other labels only", labels: map[string]string{"app": "x", "cluster.x-k8s.io/provider": "infrastructure-mem"}, want: nil},
		{name: "newest first", labels: map[string]string{
			"cluster.x-k8s.io/v1alpha4": "v1alpha4",
			"cluster.x-k8s.io/v1beta2":  "v1beta2",
			"cluster.x-k8s.io/v1beta1":  "v1beta1",
		}, want: []string{"cluster.x-k8s.io/v1beta2", "cluster.x-k8s.io/v1beta1", "cluster.x-k8s.io/v1alpha4"}},
		{name: "unsupported contracts kept", labels: map[string]string{"cluster.x-k8s.io/v2": "v2", "cluster.x-k8s.io/v1beta2": "v1beta2"},
			want: []string{"cluster.x-k8s.io/v2", "cluster.x-k8s.io/v1beta2"}},
		{name: "not a version", labels: map[string]string{"cluster.x-k8s.io/beta": "x", "cluster.x-k8s.io/v1beta": "x"}, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, VersionLabelKeys(tt.labels))
		})
	}
}

func crd(name, group, kind string, labels map[string]string, versions ...string) *apiextensionsv1.CustomResourceDefinition {
	c := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: kind},
			Scope: apiextensionsv1.NamespaceScoped,
		},
	}
	for i, v := range versions {
		c.Spec.Versions = append(c.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{Name: v, Served: true, Storage: i == len(versions)-1})
	}
	return c
}

func TestVersionOf(t *testing.T) {
	c := crd("memclusters.infrastructure.example.com", "infrastructure.example.com", "MemCluster",
		map[string]string{"cluster.x-k8s.io/v1beta2": "v1beta1_v1beta2"}, "v1beta1", "v1beta2")
	v, apiVersion, err := VersionOf(c)
	require.NoError(t, err)
	assert.Equal(t, V1Beta2, v)
	assert.Equal(t, "v1beta2", apiVersion)
	assert.Equal(t, []string{"v1beta1", "v1beta2"}, servedVersions(c))

	c.Spec.Versions[1].Served = false
	_, _, err = VersionOf(c)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `CustomResourceDefinition "memclusters.infrastructure.example.com"`)
	assert.Contains(t, err.Error(), `API version "v1beta2" is not served`)

	_, _, err = VersionOf(nil)
	require.Error(t, err)
	assert.Nil(t, servedVersions(nil))
}

func TestDiscoverContractVersion(t *testing.T) {
	scheme := runtime.NewScheme()
	require.NoError(t, apiextensionsv1.AddToScheme(scheme))
	objs := []client.Object{
		crd("memclusters.infrastructure.example.com", "infrastructure.example.com", "MemCluster",
			map[string]string{"cluster.x-k8s.io/v1beta2": "v1beta2"}, "v1beta2"),
		// An irregular plural: the conventional name "memcactuses…" does not exist, the list fallback finds it.
		crd("memcacti.infrastructure.example.com", "infrastructure.example.com", "MemCactus",
			map[string]string{"cluster.x-k8s.io/v1beta1": "v1alpha4_v1beta1"}, "v1alpha4", "v1beta1"),
		// A CRD with the conventional name of MemProxy but another kind.
		crd("memproxies.infrastructure.example.com", "infrastructure.example.com", "Other",
			map[string]string{"cluster.x-k8s.io/v1beta2": "v1beta2"}, "v1beta2"),
		crd("nolabels.infrastructure.example.com", "infrastructure.example.com", "NoLabel", nil, "v1beta2"),
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).Build()
	ctx := t.Context()

	v, apiVersion, err := DiscoverContractVersion(ctx, c, schema.GroupKind{Group: "infrastructure.example.com", Kind: "MemCluster"})
	require.NoError(t, err)
	assert.Equal(t, V1Beta2, v)
	assert.Equal(t, "v1beta2", apiVersion)

	v, apiVersion, err = DiscoverContractVersion(ctx, c, schema.GroupKind{Group: "infrastructure.example.com", Kind: "MemCactus"})
	require.NoError(t, err)
	assert.Equal(t, V1Beta1, v)
	assert.Equal(t, "v1beta1", apiVersion)

	_, _, err = DiscoverContractVersion(ctx, c, schema.GroupKind{Group: "infrastructure.example.com", Kind: "MemProxy"})
	require.ErrorIs(t, err, ErrCRDNotFound, "a CRD of another kind under the conventional name is not taken")

	_, _, err = DiscoverContractVersion(ctx, c, schema.GroupKind{Group: "infrastructure.example.com", Kind: "NoLabel"})
	require.ErrorIs(t, err, ErrNoContractLabel)

	_, _, err = DiscoverContractVersion(ctx, c, schema.GroupKind{Group: "other.example.com", Kind: "MemCluster"})
	require.ErrorIs(t, err, ErrCRDNotFound)
	assert.Contains(t, err.Error(), "MemCluster.other.example.com")

	_, _, err = DiscoverContractVersion(ctx, c, schema.GroupKind{Kind: "MemCluster"})
	require.Error(t, err)
	_, _, err = DiscoverContractVersion(ctx, nil, schema.GroupKind{Group: "g", Kind: "K"})
	require.Error(t, err)
}

func TestDiscoverContractVersionClientErrors(t *testing.T) {
	scheme := runtime.NewScheme()
	require.NoError(t, apiextensionsv1.AddToScheme(scheme))
	boom := errors.New("boom")
	gk := schema.GroupKind{Group: "infrastructure.example.com", Kind: "MemCluster"}

	c := fake.NewClientBuilder().WithScheme(scheme).WithInterceptorFuncs(interceptor.Funcs{
		Get: func(context.Context, client.WithWatch, client.ObjectKey, client.Object, ...client.GetOption) error {
			return boom
		},
	}).Build()
	_, _, err := DiscoverContractVersion(t.Context(), c, gk)
	require.ErrorIs(t, err, boom)
	assert.Contains(t, err.Error(), `"memclusters.infrastructure.example.com"`)

	c = fake.NewClientBuilder().WithScheme(scheme).WithInterceptorFuncs(interceptor.Funcs{
		List: func(context.Context, client.WithWatch, client.ObjectList, ...client.ListOption) error { return boom },
	}).Build()
	_, _, err = DiscoverContractVersion(t.Context(), c, gk)
	require.ErrorIs(t, err, boom)
}

func TestPluralizeAndCRDName(t *testing.T) {
	for kind, want := range map[string]string{
		"memcluster": "memclusters", "memmachine": "memmachines", "awsmachinetemplate": "awsmachinetemplates",
		"kubeadmconfig": "kubeadmconfigs", "proxy": "proxies", "gateway": "gateways", "box": "boxes",
		"address": "addresses", "batch": "batches", "mesh": "meshes", "y": "ys", "": "",
	} {
		assert.Equal(t, want, pluralize(kind), kind)
	}
	assert.Equal(t, "memclusters.infrastructure.example.com", crdName(schema.GroupKind{Group: "infrastructure.example.com", Kind: "MemCluster"}))
	assert.Equal(t, "cluster.x-k8s.io/v1beta2", VersionLabel(V1Beta2))
}
