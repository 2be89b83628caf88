package kubeobjects_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/conditions"
	"github.com/capkit/capkit/providertest/ensuretest"
	"github.com/capkit/capkit/providertest/testenv"
	"github.com/capkit/capkit/reconcile/ensure"
	"github.com/capkit/capkit/reconcile/kubeobjects"
	"github.com/capkit/capkit/reconcile/step"
)

var env *testenv.Environment

func TestMain(m *testing.M) { testenv.Main(m, &env) }

// configSpec is what a provider wants of a ConfigMap: its name and one value, which may change in place.
type configSpec struct{ Name, Value string }

// configMaps is the Kind of ConfigMaps in namespace ns.
func configMaps(ns string) kubeobjects.Kind[configSpec, *corev1.ConfigMap] {
	return kubeobjects.Kind[configSpec, *corev1.ConfigMap]{
		Object:    &corev1.ConfigMap{},
		List:      &corev1.ConfigMapList{},
		Namespace: ns,
		Validate: func(s configSpec) error {
			if s.Name == "" {
				return errors.New("name must not be empty")
			}
			return nil
		},
		Build: func(s configSpec) (*corev1.ConfigMap, error) {
			return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: s.Name},
				Data: map[string]string{"value": s.Value}}, nil
		},
		Mutate: func(s configSpec, cm *corev1.ConfigMap) ([]string, bool) {
			if cm.Data["value"] == s.Value {
				return nil, false
			}
			if cm.Data == nil {
				cm.Data = map[string]string{}
			}
			cm.Data["value"] = s.Value
			return []string{"data.value"}, false
		},
	}
}

func newConfigMaps(t testing.TB) (ensure.Resource[configSpec, *corev1.ConfigMap], string) {
	t.Helper()
	ns := env.Namespace(t, "kubeobjects")
	r, err := kubeobjects.New(env.Client, configMaps(ns))
	require.NoError(t, err)
	return r, ns
}

// key returns the object key of an object ID.
func key(t testing.TB, id string) client.ObjectKey {
	t.Helper()
	k, _, err := kubeobjects.ParseID(id)
	require.NoError(t, err)
	return k
}

// TestEnsureScenarios runs capkit's standard Ensure scenarios against ConfigMaps on a real API server: the
// ones every cloud resource must pass, and the update and pending ones.
func TestEnsureScenarios(t *testing.T) {
	ctx := context.Background()
	ensuretest.RunScenarios(t, ensuretest.ResourceUnderTest[configSpec, *corev1.ConfigMap]{
		Key:       "config",
		ValidSpec: configSpec{Name: "machine-0-bootstrap", Value: "#!/bin/bash"},
		// A name the API server would refuse: Validate must stop it first.
		InvalidSpec:     configSpec{},
		OutOfBandDelete: ensuretest.Recreate, // the name is free again once the object is gone
		Options:         []ensure.Option{ensure.WithTags(map[string]string{"capkit.io/cluster": "ns/c1"})},
		New: func(t testing.TB) ensuretest.CloudFixture[configSpec, *corev1.ConfigMap] {
			r, ns := newConfigMaps(t)
			return ensuretest.CloudFixture[configSpec, *corev1.ConfigMap]{
				Resource: r,
				Count: func() int {
					list := &corev1.ConfigMapList{}
					require.NoError(t, env.Client.List(ctx, list, client.InNamespace(ns)))
					return len(list.Items)
				},
				DeleteOutOfBand: func(id string) error {
					cm := &corev1.ConfigMap{}
					cm.Namespace, cm.Name = key(t, id).Namespace, key(t, id).Name
					return env.Client.Delete(ctx, cm)
				},
				Drift: func(id string) error {
					cm := &corev1.ConfigMap{}
					if err := env.Client.Get(ctx, key(t, id), cm); err != nil {
						return err
					}
					cm.Data["value"] = "changed by hand"
					return env.Client.Update(ctx, cm)
				},
				MakePending: func(id string) error { return deleteBehindFinalizer(ctx, key(t, id)) },
			}
		},
	})
}

// deleteBehindFinalizer deletes the ConfigMap while a finalizer holds it: it stays, being deleted.
func deleteBehindFinalizer(ctx context.Context, k client.ObjectKey) error {
	cm := &corev1.ConfigMap{}
	if err := env.Client.Get(ctx, k, cm); err != nil {
		return err
	}
	cm.Finalizers = append(cm.Finalizers, "test.capkit.io/hold")
	if err := env.Client.Update(ctx, cm); err != nil {
		return err
	}
	return env.Client.Delete(ctx, cm)
}

func TestTagsBecomeLabelsOrAnnotations(t *testing.T) {
	ctx := t.Context()
	r, ns := newConfigMaps(t)
	tags := map[string]string{ensure.TagOwnershipKey: "k1", ensure.TagResourceKey: "config", "capkit.io/cluster": "ns/c1"}
	cm, err := r.Create(ctx, configSpec{Name: "a", Value: "x"}, "token", tags)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{ensure.TagOwnershipKey: "k1", ensure.TagResourceKey: "config"}, cm.Labels)
	assert.Equal(t, map[string]string{"capkit.io/cluster": "ns/c1"}, cm.Annotations, "not a valid label value")
	assert.Equal(t, ns+"/a/"+string(cm.UID), r.ID(cm))

	found, ok, err := r.FindByTags(ctx, tags)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, cm.UID, found.UID)
	other := map[string]string{ensure.TagOwnershipKey: "k1", ensure.TagResourceKey: "config", "capkit.io/cluster": "ns/c2"}
	_, ok, err = r.FindByTags(ctx, other)
	require.NoError(t, err)
	assert.False(t, ok, "the annotation tags are checked too")
}

func TestCreateIsIdempotentByNameAndRefusesAnotherOwnersObject(t *testing.T) {
	ctx := t.Context()
	r, _ := newConfigMaps(t)
	mine := ensure.OwnershipTags("k1", "config")
	first, err := r.Create(ctx, configSpec{Name: "a", Value: "x"}, "token", mine)
	require.NoError(t, err)
	again, err := r.Create(ctx, configSpec{Name: "a", Value: "x"}, "token", mine)
	require.NoError(t, err, "a retry after a lost response gets the object it created")
	assert.Equal(t, first.UID, again.UID)

	_, err = r.Create(ctx, configSpec{Name: "a", Value: "x"}, "token", ensure.OwnershipTags("k2", "config"))
	require.Error(t, err)
	assert.Equal(t, conditions.ReasonNameTaken, step.TerminalReason(err))
	assert.ErrorContains(t, err, "belongs to another owner")
}

// TestDeclaresWhatTheAPIServerGuarantees: the Resource declares creates idempotent by name (shown above) and an
// immediate search, which holds for a client that reads from the API server: the list right after a create
// lists the object.
func TestDeclaresWhatTheAPIServerGuarantees(t *testing.T) {
	ctx := t.Context()
	updatable, ns := newConfigMaps(t)
	kind := configMaps(ns)
	kind.Mutate = nil
	plain, err := kubeobjects.New(env.Client, kind)
	require.NoError(t, err)
	want := ensure.Guarantees{Idempotency: ensure.IdempotentByName, ImmediateSearch: true}
	for name, r := range map[string]ensure.Resource[configSpec, *corev1.ConfigMap]{"updatable": updatable, "plain": plain} {
		d, ok := r.(ensure.Declarer)
		require.True(t, ok, name)
		assert.Equal(t, want, d.Guarantees(), name)
	}

	mine := ensure.OwnershipTags("k1", "listed")
	created, err := plain.Create(ctx, configSpec{Name: "listed", Value: "x"}, "token", mine)
	require.NoError(t, err)
	found, ok, err := plain.FindByTags(ctx, mine)
	require.NoError(t, err)
	require.True(t, ok, "listed as soon as the create returned")
	assert.Equal(t, created.UID, found.UID)
}

func TestAnotherIncarnationIsAnotherResource(t *testing.T) {
	ctx := t.Context()
	r, _ := newConfigMaps(t)
	tags := ensure.OwnershipTags("k1", "config")
	old, err := r.Create(ctx, configSpec{Name: "a", Value: "x"}, "token", tags)
	require.NoError(t, err)
	require.NoError(t, env.Client.Delete(ctx, old.DeepCopy()))
	current, err := r.Create(ctx, configSpec{Name: "a", Value: "y"}, "token", tags)
	require.NoError(t, err)

	_, found, err := r.Get(ctx, r.ID(old))
	require.NoError(t, err)
	assert.False(t, found, "the tracked object is gone, whatever now has its name")
	require.NoError(t, r.Delete(ctx, r.ID(old)), "deleting the old incarnation leaves the new one alone")
	_, found, err = r.Get(ctx, r.ID(current))
	require.NoError(t, err)
	assert.True(t, found)
}

// TestDeprecatedKindFactories: a Kind with the v0.1.0 New and NewList, and no Object and List, still works.
func TestDeprecatedKindFactories(t *testing.T) {
	kind := configMaps(env.Namespace(t, "deprecated"))
	kind.Object, kind.List = nil, nil
	kind.New = func() *corev1.ConfigMap { return &corev1.ConfigMap{} }
	kind.NewList = func() client.ObjectList { return &corev1.ConfigMapList{} }
	r, err := kubeobjects.New(env.Client, kind)
	require.NoError(t, err)
	tags := map[string]string{ensure.TagOwnershipKey: "k1", ensure.TagResourceKey: "config"}
	cm, err := r.Create(t.Context(), configSpec{Name: "a", Value: "1"}, "token", tags)
	require.NoError(t, err)
	found, ok, err := r.FindByTags(t.Context(), tags) // lists through NewList
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, cm.UID, found.UID)
	got, ok, err := r.Get(t.Context(), r.ID(cm)) // reads through New
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "1", got.Data["value"])
}

func TestBadInput(t *testing.T) {
	_, err := kubeobjects.New[configSpec](nil, configMaps("ns"))
	assert.ErrorContains(t, err, "client is nil")
	tests := []struct {
		name    string
		mutate  func(*kubeobjects.Kind[configSpec, *corev1.ConfigMap])
		wantMsg string
	}{
		{name: "no Build", mutate: func(k *kubeobjects.Kind[configSpec, *corev1.ConfigMap]) { k.Build = nil }, wantMsg: "Kind.Build is required"},
		{name: "no Object", mutate: func(k *kubeobjects.Kind[configSpec, *corev1.ConfigMap]) { k.Object = nil },
			wantMsg: "Kind.Object is a nil *v1.ConfigMap"},
		{name: "no List", mutate: func(k *kubeobjects.Kind[configSpec, *corev1.ConfigMap]) { k.List = nil }, wantMsg: "Kind.List is nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kind := configMaps("ns")
			tt.mutate(&kind)
			_, err := kubeobjects.New(env.Client, kind)
			assert.ErrorContains(t, err, "cannot create the objects resource: "+tt.wantMsg)
		})
	}
	for _, id := range []string{"", "ns/name", "ns//uid", "a/b/c/d"} {
		_, _, err := kubeobjects.ParseID(id)
		assert.ErrorContains(t, err, "want namespace/name/uid", id)
	}
	r, _ := newConfigMaps(t)
	_, _, err = r.Get(t.Context(), "bad")
	assert.True(t, step.IsTerminal(err))
}
