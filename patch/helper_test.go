package patch_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/patch"
	"github.com/capkit/capkit/scope/scopetest"
)

func TestPatchSendsOnlyWhatChanged(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(m *testtypes.FooMachine)
		want   []scopetest.Write
	}{
		{"nothing", func(*testtypes.FooMachine) {}, nil},
		{"status", func(m *testtypes.FooMachine) {
			m.Status.Addresses = []contract.MachineAddress{{Type: contract.MachineInternalIP, Address: "10.0.0.1"}}
		}, []scopetest.Write{{Verb: "patch", SubResource: "status"}}},
		{"spec", func(m *testtypes.FooMachine) { m.Spec.ProviderID = "foo://1" }, []scopetest.Write{{Verb: "patch"}}},
		{"spec and status", func(m *testtypes.FooMachine) {
			m.Spec.ProviderID = "foo://1"
			m.Status.FailureDomain = "fd-1"
		}, []scopetest.Write{{Verb: "patch"}, {Verb: "patch", SubResource: "status"}}},
		{"same value written again", func(m *testtypes.FooMachine) { m.Spec.Size = "small" }, nil},
		{"nil and empty map", func(m *testtypes.FooMachine) { m.Status.Resources = map[string]string{} }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cc := scopetest.NewCountingClient(env.Client)
			m := newMachine(t, cc)
			cc.Reset()
			h, err := patch.NewHelper(cc, m)
			require.NoError(t, err)
			tc.change(m)
			require.NoError(t, h.Patch(t.Context(), m))
			var got []scopetest.Write
			for _, w := range cc.Log() {
				got = append(got, scopetest.Write{Verb: w.Verb, SubResource: w.SubResource})
			}
			assert.Equal(t, tc.want, got)
			changes, err := h.HasChanges(m)
			require.NoError(t, err)
			assert.False(t, changes, "nothing left to send after Patch")
			server := reread(t, m)
			assert.Equal(t, m.Spec, server.Spec)
			assert.Equal(t, m.Status.Addresses, server.Status.Addresses)
			assert.Equal(t, m.ResourceVersion, server.ResourceVersion, "the object carries the server's resourceVersion")
		})
	}
}

func TestConflictKeepsBothWritersConditionsAndFinalizers(t *testing.T) {
	ctx := t.Context()
	m := newMachine(t, env.Client)
	h, err := patch.NewHelper(env.Client, m)
	require.NoError(t, err)

	// Another controller writes after our read.
	addTheirCondition(t, m)
	addTheirFinalizer(t, m)

	m.Finalizers = append(m.Finalizers, "a.io/mine")
	m.Status.Conditions = append(m.Status.Conditions, cond("Mine", metav1.ConditionTrue))
	require.NoError(t, h.Patch(ctx, m))

	server := reread(t, m)
	assert.ElementsMatch(t, []string{"a.io/one", "b.io/theirs", "a.io/mine"}, server.Finalizers)
	assert.ElementsMatch(t, []string{"Ready=False", "Theirs=True", "Mine=True"}, conditionTypes(server))
	assert.ElementsMatch(t, server.Finalizers, m.Finalizers, "the object has the merged finalizers")
}

// TestConflictKeepsFinalizersThisHelperDidNotChange: a guarded patch that changes no finalizer (here a
// write-once label) conflicts with another writer that added one; the rebase must not read the other
// writer's finalizer as removed by this Helper.
func TestConflictKeepsFinalizersThisHelperDidNotChange(t *testing.T) {
	ctx := t.Context()
	m := newMachine(t, env.Client)
	h, err := patch.NewHelper(env.Client, m, patch.WithWriteOnceLabels("a.io/key"))
	require.NoError(t, err)

	addTheirFinalizer(t, m)

	m.Labels = map[string]string{"a.io/key": "k1"}
	m.Spec.ProviderID = "foo://1"
	require.NoError(t, h.PatchSpec(ctx, m), "the conflict is resolved by re-reading and re-applying")

	server := reread(t, m)
	assert.Equal(t, []string{"a.io/one", "b.io/theirs"}, server.Finalizers)
	assert.Equal(t, "k1", server.Labels["a.io/key"])
	assert.Equal(t, "foo://1", server.Spec.ProviderID)
	assert.Equal(t, server.Finalizers, m.Finalizers, "the object has the server's finalizers")
	changes, err := h.HasChanges(m)
	require.NoError(t, err)
	assert.False(t, changes, "nothing left to send")
}

func TestConditionOfAnotherWriterSurvivesSpecCheckpoint(t *testing.T) {
	ctx := t.Context()
	m := newMachine(t, env.Client)
	h, err := patch.NewHelper(env.Client, m)
	require.NoError(t, err)

	addTheirCondition(t, m)

	// An unguarded spec checkpoint moves our resourceVersion past the other writer's change ...
	m.Spec.ProviderID = "foo://1"
	require.NoError(t, h.PatchSpec(ctx, m))
	server := reread(t, m)
	assert.Equal(t, server.ResourceVersion, m.ResourceVersion, "the object carries the server's resourceVersion")
	assert.ElementsMatch(t, []string{"Ready=False", "Theirs=True"}, conditionTypes(server), "the other writer's condition is untouched")
	// ... so the later guarded status patch must be computed against the server's conditions.
	m.Status.Conditions = append(m.Status.Conditions, cond("Mine", metav1.ConditionTrue))
	m.Status.FailureDomain = "fd-1"
	require.NoError(t, h.Patch(ctx, m))

	server = reread(t, m)
	assert.Equal(t, "foo://1", server.Spec.ProviderID)
	assert.Equal(t, "fd-1", server.Status.FailureDomain)
	assert.ElementsMatch(t, []string{"Ready=False", "Theirs=True", "Mine=True"}, conditionTypes(server))
}

func TestPatchSpecLeavesStatusForPatch(t *testing.T) {
	ctx := t.Context()
	cc := scopetest.NewCountingClient(env.Client)
	m := newMachine(t, cc)
	cc.Reset()
	h, err := patch.NewHelper(cc, m)
	require.NoError(t, err)
	m.Spec.ProviderID = "foo://1"
	m.Status.FailureDomain = "fd-1"
	require.NoError(t, h.PatchSpec(ctx, m))
	assert.Equal(t, 1, cc.Writes())
	assert.Empty(t, reread(t, m).Status.FailureDomain, "status waits for Patch")
	changes, err := h.HasChanges(m)
	require.NoError(t, err)
	assert.True(t, changes)
	require.NoError(t, h.PatchSpec(ctx, m))
	assert.Equal(t, 1, cc.Writes(), "a second PatchSpec has nothing to send")
	require.NoError(t, h.Patch(ctx, m))
	assert.Equal(t, 2, cc.Writes())
	assert.Equal(t, "fd-1", reread(t, m).Status.FailureDomain)
}

func TestWriteOnceLabelKeepsTheServersValue(t *testing.T) {
	ctx := t.Context()
	m := newMachine(t, env.Client)
	h, err := patch.NewHelper(env.Client, m, patch.WithWriteOnceLabels("a.io/key"))
	require.NoError(t, err)
	other := reread(t, m)
	other.Labels = map[string]string{"a.io/key": "first"}
	require.NoError(t, env.Client.Update(ctx, other))

	m.Labels = map[string]string{"a.io/key": "second"}
	require.NoError(t, h.Patch(ctx, m))
	assert.Equal(t, "first", reread(t, m).Labels["a.io/key"])
	assert.Equal(t, "first", m.Labels["a.io/key"], "the object learns the server's value")
	assert.Equal(t, "first", h.PersistedLabel("a.io/key"))
}

// TestEmptiedMetadataMapKeepsOtherWritersKeys: this writer removes the last label or annotation it read while
// another writer adds one. A merge patch that sets the whole map to null would remove theirs too; the helper
// removes its keys one by one.
func TestEmptiedMetadataMapKeepsOtherWritersKeys(t *testing.T) {
	for _, tc := range []struct {
		name string
		get  func(metav1.Object) map[string]string
		set  func(metav1.Object, map[string]string)
	}{
		{"labels", metav1.Object.GetLabels, metav1.Object.SetLabels},
		{"annotations", metav1.Object.GetAnnotations, metav1.Object.SetAnnotations},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			m := newMachine(t, env.Client)
			tc.set(m, map[string]string{"a.io/mine": "1"})
			require.NoError(t, env.Client.Update(ctx, m))
			h, err := patch.NewHelper(env.Client, m)
			require.NoError(t, err)
			other := reread(t, m)
			tc.set(other, map[string]string{"a.io/mine": "1", "b.io/theirs": "2"})
			require.NoError(t, env.Client.Update(ctx, other))

			delete(tc.get(m), "a.io/mine")
			require.NoError(t, h.Patch(ctx, m))
			assert.Equal(t, map[string]string{"b.io/theirs": "2"}, tc.get(reread(t, m)))
		})
	}
}

func TestConflictRetriesAreBounded(t *testing.T) {
	m := newMachine(t, env.Client)
	patches := 0
	c := interceptor.NewClient(watchClient(t), interceptor.Funcs{
		SubResourcePatch: func(context.Context, client.Client, string, client.Object, client.Patch, ...client.SubResourcePatchOption) error {
			patches++
			return apierrors.NewConflict(schema.GroupResource{Resource: "foomachines"}, "m", errors.New("changed"))
		},
	})
	h, err := patch.NewHelper(c, m, patch.WithConflictRetries(2))
	require.NoError(t, err)
	m.Status.Conditions = append(m.Status.Conditions, cond("Mine", metav1.ConditionTrue))
	err = h.Patch(t.Context(), m)
	require.Error(t, err)
	assert.True(t, apierrors.IsConflict(err))
	assert.Contains(t, err.Error(), "cannot patch status of FooMachine "+m.Namespace+"/m")
	assert.Equal(t, 3, patches, "the first attempt and two retries")
}

func TestUnguardedPatchDoesNotRetry(t *testing.T) {
	m := newMachine(t, env.Client)
	patches := 0
	c := interceptor.NewClient(watchClient(t), interceptor.Funcs{
		SubResourcePatch: func(_ context.Context, _ client.Client, _ string, _ client.Object, p client.Patch, _ ...client.SubResourcePatchOption) error {
			patches++
			data, _ := p.Data(nil)
			assert.NotContains(t, string(data), "resourceVersion", "a patch without list changes is not guarded")
			return apierrors.NewConflict(schema.GroupResource{Resource: "foomachines"}, "m", errors.New("changed"))
		},
	})
	h, err := patch.NewHelper(c, m)
	require.NoError(t, err)
	m.Status.FailureDomain = "fd-1"
	require.Error(t, h.Patch(t.Context(), m))
	assert.Equal(t, 1, patches)
}

func TestUnstructuredWithConditionsPath(t *testing.T) {
	ctx := t.Context()
	typed := newMachine(t, env.Client)
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(testtypes.GroupVersion.WithKind("FooMachine"))
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(typed), u))
	h, err := patch.NewHelper(env.Client, u, patch.WithConditionsPath("status", "conditions"))
	require.NoError(t, err)

	addTheirCondition(t, typed)

	f := contract.NewField[[]metav1.Condition]("status", "conditions")
	conds, err := f.Get(u)
	require.NoError(t, err)
	require.NoError(t, f.Set(u, append(conds, cond("Mine", metav1.ConditionTrue))))
	require.NoError(t, h.Patch(ctx, u))
	assert.ElementsMatch(t, []string{"Ready=False", "Theirs=True", "Mine=True"}, conditionTypes(reread(t, typed)))
}

func TestLastFinalizerRemovedOnDeletedObject(t *testing.T) {
	ctx := t.Context()
	m := newMachine(t, env.Client)
	require.NoError(t, env.Client.Delete(ctx, m))
	m = reread(t, m)
	h, err := patch.NewHelper(env.Client, m)
	require.NoError(t, err)
	m.Finalizers = nil
	m.Status.FailureDomain = "gone"
	require.NoError(t, h.Patch(ctx, m), "the object is gone with its last finalizer: nothing to report")
	err = env.Client.Get(ctx, client.ObjectKeyFromObject(m), &testtypes.FooMachine{})
	assert.True(t, apierrors.IsNotFound(err))
}

func TestNewHelperRejectsBadInput(t *testing.T) {
	m := &testtypes.FooMachine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "m"}}
	var nilMachine *testtypes.FooMachine
	for _, tc := range []struct {
		name string
		c    client.Client
		obj  client.Object
		opts []patch.Option
		want string
	}{
		{"nil client", nil, m, nil, "client is nil"},
		{"nil object", env.Client, nil, nil, "object is nil"},
		{"typed nil object", env.Client, nilMachine, nil, "object is nil"},
		{"conditions path on a typed object", env.Client, &testtypes.Legacy{}, []patch.Option{patch.WithConditionsPath("status", "conditions")},
			`conditions path "status.conditions" needs an *unstructured.Unstructured`},
		{"negative retries", env.Client, m, []patch.Option{patch.WithConflictRetries(-1)}, "conflict retries -1 must not be negative"},
		{"unknown type", env.Client, &unknown{}, nil, "cannot create a patch helper for *patch_test.unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := patch.NewHelper(tc.c, tc.obj, tc.opts...)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

type unknown struct{ testtypes.FooMachine }

func watchClient(t *testing.T) client.WithWatch {
	t.Helper()
	c, err := client.NewWithWatch(env.Config, client.Options{Scheme: env.Scheme})
	require.NoError(t, err)
	return c
}
