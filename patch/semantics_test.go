package patch_test

// The tests of this file hold capkit's Helper to the behaviour of Cluster API's util/patch helper (issue 23):
// no patch for what the API forgets, no resourceVersion on a patch that guards nothing, other writers'
// conditions neither overwritten nor claimed, one object per Helper.

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/patch"
)

// newWidget creates a Widget with a condition and returns it as read back.
func newWidget(t *testing.T, c client.Client) *Widget {
	t.Helper()
	ctx := context.Background()
	ns := env.Namespace(t, "patch")
	w := &Widget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "w"}, Spec: WidgetSpec{Size: "small"}}
	require.NoError(t, c.Create(ctx, w))
	w.Status.Conditions = []metav1.Condition{cond("Ready", metav1.ConditionFalse)}
	require.NoError(t, c.Status().Update(ctx, w))
	got := &Widget{}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(w), got))
	return got
}

// TestPatchSendsNothingTheAPIWouldForget: an empty list where there was none marshals as an empty object
// once it sits in a struct marked omitzero ({"spec":{"topology":{}}}), which the API server rejects (the
// topology's required class) or stores as a useless empty object. A change that a round trip through the
// API forgets is no change: nothing is sent for it, alone or next to a real change.
func TestPatchSendsNothingTheAPIWouldForget(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(w *Widget)
		want   []string
	}{
		{"empty list in an omitzero spec struct", func(w *Widget) {
			w.Spec.Topology.Variables = []WidgetVariable{}
		}, nil},
		{"empty list in an omitzero status struct", func(w *Widget) {
			w.Status.Initialization.Addresses = []string{}
		}, nil},
		{"empty list in status", func(w *Widget) { w.Status.FailureDomains = []string{} }, nil},
		{"empty lists everywhere", func(w *Widget) {
			w.Spec.Topology.Variables = []WidgetVariable{}
			w.Status.Initialization.Addresses = []string{}
			w.Status.FailureDomains = []string{}
		}, nil},
		{"empty list next to a spec change", func(w *Widget) {
			w.Spec.Topology.Variables = []WidgetVariable{}
			w.Spec.Size = "large"
		}, []string{"patch"}},
		{"empty list next to a status change", func(w *Widget) {
			w.Status.Initialization.Addresses = []string{}
			w.Status.FailureDomains = []string{"fd-1"}
		}, []string{"patch status"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			rec := newRecorder(t)
			w := newWidget(t, rec)
			rec.take()
			h, err := patch.NewHelper(rec, w)
			require.NoError(t, err)
			tc.change(w)
			changes, err := h.HasChanges(w)
			require.NoError(t, err)
			assert.Equal(t, tc.want != nil, changes, "HasChanges agrees with what Patch sends")
			require.NoError(t, h.Patch(ctx, w))
			assert.Equal(t, tc.want, summary(rec.take()))
			changes, err = h.HasChanges(w)
			require.NoError(t, err)
			assert.False(t, changes, "nothing left to send after Patch")

			server := &Widget{}
			require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(w), server))
			assert.Equal(t, w.Spec.Size, server.Spec.Size)
			assert.Len(t, server.Status.FailureDomains, len(w.Status.FailureDomains))
			assert.Zero(t, server.Spec.Topology, "no empty topology stored")
			assert.Zero(t, server.Status.Initialization, "no empty initialization stored")
		})
	}
}

// TestConditionChangeLeavesTheSpecPatchUnlocked: only the patch that carries a guarded list carries the
// resourceVersion. A spec change next to a condition change is one plain metadata-and-spec patch, which
// another writer's status change cannot make conflict, then one locked status patch; Cluster API sends the
// spec patch once too.
func TestConditionChangeLeavesTheSpecPatchUnlocked(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(m *testtypes.FooMachine)
		want   []string
	}{
		{"spec and a condition", func(m *testtypes.FooMachine) {
			m.Spec.ProviderID = "foo://1"
			m.Status.Conditions = append(m.Status.Conditions, cond("Mine", metav1.ConditionTrue))
		}, []string{"patch", "patch status (locked)"}},
		{"spec, status and a condition", func(m *testtypes.FooMachine) {
			m.Spec.ProviderID = "foo://1"
			m.Status.FailureDomain = "fd-1"
			m.Status.Conditions = append(m.Status.Conditions, cond("Mine", metav1.ConditionTrue))
		}, []string{"patch", "patch status (locked)"}},
		{"a finalizer", func(m *testtypes.FooMachine) {
			m.Finalizers = append(m.Finalizers, "a.io/mine")
			m.Status.FailureDomain = "fd-1"
		}, []string{"patch (locked) -> error", "get", "patch (locked)", "patch status"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := newRecorder(t)
			m := newMachine(t, env.Client)
			h, err := patch.NewHelper(rec, m)
			require.NoError(t, err)
			addTheirCondition(t, m) // moves the resourceVersion
			tc.change(m)
			require.NoError(t, h.Patch(t.Context(), m))
			assert.Equal(t, tc.want, summary(rec.take()))

			server := reread(t, m)
			assert.Equal(t, m.Spec, server.Spec)
			assert.Equal(t, m.Finalizers, server.Finalizers)
			assert.Contains(t, conditionTypes(server), "Theirs=True", "the other writer's condition survives")
			assert.ElementsMatch(t, conditionTypes(server), conditionTypes(m), "the object holds the server's conditions")
		})
	}
}

// TestGenerationBumpClaimsOnlyTheCallersConditions: after this Helper's spec patch moves the generation,
// the conditions the caller changed or owns observe the new generation (the spec they were computed against
// is the one just written); another writer's condition keeps the generation it observed, and no condition
// observes a generation that includes another writer's spec change.
func TestGenerationBumpClaimsOnlyTheCallersConditions(t *testing.T) {
	ctx := t.Context()
	at := func(typ string, g int64) metav1.Condition {
		c := cond(typ, metav1.ConditionTrue)
		c.ObservedGeneration = g
		return c
	}
	observed := func(m *testtypes.FooMachine) map[string]int64 {
		out := map[string]int64{}
		for _, c := range m.Status.Conditions {
			out[c.Type] = c.ObservedGeneration
		}
		return out
	}

	t.Run("this patch alone moved the generation", func(t *testing.T) {
		m := newMachine(t, env.Client)
		gen := m.Generation
		m.Status.Conditions = []metav1.Condition{at("Ready", gen), at("Step", gen)}
		require.NoError(t, env.Client.Status().Update(ctx, m))
		m = reread(t, m)
		h, err := patch.NewHelper(env.Client, m, patch.WithOwnedConditions("Ready"))
		require.NoError(t, err)
		other := reread(t, m)
		other.Status.Conditions = append(other.Status.Conditions, at("Theirs", gen))
		require.NoError(t, env.Client.Status().Update(ctx, other))

		m.Spec.ProviderID = "foo://1"
		m.Status.Conditions = append(m.Status.Conditions, at("Mine", gen))
		require.NoError(t, h.Patch(ctx, m))
		server := reread(t, m)
		require.Equal(t, gen+1, server.Generation)
		assert.Equal(t, map[string]int64{
			"Ready":  gen + 1, // owned
			"Mine":   gen + 1, // changed by the caller
			"Step":   gen,     // neither: nobody said it still holds for the new spec
			"Theirs": gen,     // another writer's
		}, observed(server))
		assert.Equal(t, observed(server), observed(m), "the object holds what the server holds")
	})

	t.Run("another writer changed the spec too", func(t *testing.T) {
		m := newMachine(t, env.Client)
		gen := m.Generation
		h, err := patch.NewHelper(env.Client, m, patch.WithOwnedConditions("Ready"))
		require.NoError(t, err)
		other := reread(t, m)
		other.Spec.FailureDomain = "theirs"
		require.NoError(t, env.Client.Update(ctx, other))

		m.Spec.ProviderID = "foo://1"
		m.Status.Conditions = []metav1.Condition{at("Ready", gen), at("Mine", gen)}
		require.NoError(t, h.Patch(ctx, m))
		server := reread(t, m)
		require.Equal(t, gen+2, server.Generation)
		assert.Equal(t, map[string]int64{"Ready": gen, "Mine": gen}, observed(server),
			"generation gen+1 is another writer's spec, which the caller never saw")
	})
}

// TestConditionConflicts: a condition type that another writer changed since the read, and that this Helper
// changes differently, is a conflict: Patch keeps the other writer's value, persists everything else and
// returns ErrConditionConflict, unless the caller owns the type or forces, as Cluster API's helper does.
func TestConditionConflicts(t *testing.T) {
	ready := func(s metav1.ConditionStatus, reason string) metav1.Condition {
		c := cond("Ready", s)
		c.Reason = reason
		return c
	}
	set := func(c metav1.Condition) func(m *testtypes.FooMachine) {
		return func(m *testtypes.FooMachine) {
			for i := range m.Status.Conditions {
				if m.Status.Conditions[i].Type == c.Type {
					m.Status.Conditions[i] = c
					return
				}
			}
			m.Status.Conditions = append(m.Status.Conditions, c)
		}
	}
	remove := func(typ string) func(m *testtypes.FooMachine) {
		return func(m *testtypes.FooMachine) {
			var out []metav1.Condition
			for _, c := range m.Status.Conditions {
				if c.Type != typ {
					out = append(out, c)
				}
			}
			m.Status.Conditions = out
		}
	}
	for _, tc := range []struct {
		name     string
		opts     []patch.Option
		own      []string // given to OwnConditions after NewHelper
		theirs   func(m *testtypes.FooMachine)
		mine     func(m *testtypes.FooMachine)
		spec     bool // the caller changes the spec too
		conflict bool
		want     []string // conditions on the server, as Type=Status/Reason
	}{
		{name: "both changed a type", theirs: set(ready("True", "Theirs")), mine: set(ready("False", "Mine")),
			conflict: true, want: []string{"Ready=True/Theirs"}},
		{name: "both changed a type, with a spec change", theirs: set(ready("True", "Theirs")), mine: set(ready("False", "Mine")),
			spec: true, conflict: true, want: []string{"Ready=True/Theirs"}},
		{name: "both changed an owned type", opts: []patch.Option{patch.WithOwnedConditions("Other", "Ready")},
			theirs: set(ready("True", "Theirs")), mine: set(ready("False", "Mine")), want: []string{"Ready=False/Mine"}},
		{name: "both changed a type owned after creation", own: []string{"Ready"},
			theirs: set(ready("True", "Theirs")), mine: set(ready("False", "Mine")), spec: true, want: []string{"Ready=False/Mine"}},
		{name: "both changed a type, forced", opts: []patch.Option{patch.WithForceOverwriteConditions()},
			theirs: set(ready("True", "Theirs")), mine: set(ready("False", "Mine")), want: []string{"Ready=False/Mine"}},
		{name: "both made the same change", theirs: set(ready("True", "Same")), mine: set(ready("True", "Same")),
			want: []string{"Ready=True/Same"}},
		{name: "both added a type", theirs: set(cond("New", "True")), mine: set(cond("New", "False")),
			conflict: true, want: []string{"New=True/Test", "Ready=False/Test"}},
		{name: "removed here, changed there", theirs: set(ready("True", "Theirs")), mine: remove("Ready"),
			conflict: true, want: []string{"Ready=True/Theirs"}},
		{name: "changed here, removed there", theirs: remove("Ready"), mine: set(ready("True", "Mine")),
			conflict: true, want: nil},
		{name: "different types", theirs: set(cond("Theirs", "True")), mine: set(ready("True", "Mine")),
			want: []string{"Ready=True/Mine", "Theirs=True/Test"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			m := newMachine(t, env.Client)
			h, err := patch.NewHelper(env.Client, m, tc.opts...)
			require.NoError(t, err)
			h.OwnConditions(tc.own...)
			other := reread(t, m)
			tc.theirs(other)
			require.NoError(t, env.Client.Status().Update(ctx, other))

			tc.mine(m)
			m.Status.FailureDomain = "fd-1"
			if tc.spec {
				m.Spec.ProviderID = "foo://1"
			}
			err = h.Patch(ctx, m)
			if tc.conflict {
				require.ErrorIs(t, err, patch.ErrConditionConflict)
				assert.Contains(t, err.Error(), "cannot patch FooMachine "+m.Namespace+"/m: ")
			} else {
				require.NoError(t, err)
			}
			server := reread(t, m)
			var got []string
			for _, c := range server.Status.Conditions {
				got = append(got, c.Type+"="+string(c.Status)+"/"+c.Reason)
			}
			assert.ElementsMatch(t, tc.want, got)
			assert.ElementsMatch(t, rendered(server.Status.Conditions), rendered(m.Status.Conditions), "the object holds the server's conditions")
			assert.Equal(t, "fd-1", server.Status.FailureDomain, "the rest of status is persisted")
			if tc.spec {
				assert.Equal(t, "foo://1", server.Spec.ProviderID)
			}
			changes, err := h.HasChanges(m)
			require.NoError(t, err)
			assert.False(t, changes, "a conflict is reported once")
		})
	}
}

// TestConditionConflictFoundByPatchSpec: a conflict that PatchSpec finds (in the server's answer to its spec
// patch) is reported by the Patch that would have written the condition.
func TestConditionConflictFoundByPatchSpec(t *testing.T) {
	ctx := t.Context()
	m := newMachine(t, env.Client)
	h, err := patch.NewHelper(env.Client, m)
	require.NoError(t, err)
	other := reread(t, m)
	other.Status.Conditions[0].Reason = "Theirs"
	require.NoError(t, env.Client.Status().Update(ctx, other))

	m.Status.Conditions[0].Reason = "Mine"
	m.Spec.ProviderID = "foo://1"
	require.NoError(t, h.PatchSpec(ctx, m), "the spec is written")
	assert.Equal(t, "foo://1", reread(t, m).Spec.ProviderID)
	require.ErrorIs(t, h.Patch(ctx, m), patch.ErrConditionConflict)
	assert.Equal(t, "Theirs", reread(t, m).Status.Conditions[0].Reason)
	require.NoError(t, h.Patch(ctx, m), "reported once")
}

// TestPatchRefusesAnotherObject: a Helper diffs against the snapshot of its own object; given another
// object (another kind, name, namespace, or the same name recreated with another UID) it sends nothing and
// says so.
func TestPatchRefusesAnotherObject(t *testing.T) {
	ctx := context.Background()
	rec := newRecorder(t)
	m := newMachine(t, env.Client)
	cluster := &testtypes.FooCluster{ObjectMeta: metav1.ObjectMeta{Namespace: m.Namespace, Name: m.Name}}
	require.NoError(t, env.Client.Create(ctx, cluster))
	asUnstructured := func(obj client.Object, kind string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(testtypes.GroupVersion.WithKind(kind))
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(obj), u))
		return u
	}
	renamed := m.DeepCopyObject().(*testtypes.FooMachine)
	renamed.Name = "other"
	moved := m.DeepCopyObject().(*testtypes.FooMachine)
	moved.Namespace = "elsewhere"
	recreated := m.DeepCopyObject().(*testtypes.FooMachine)
	recreated.UID = "00000000-0000-0000-0000-000000000000"

	for _, tc := range []struct {
		name       string
		helper, by client.Object
		want       string
	}{
		{"another kind", m, cluster, "cannot patch FooMachine " + m.Namespace + "/m: the object given is FooCluster " + m.Namespace + "/m: "},
		{"another name", m, renamed, "the object given is FooMachine " + m.Namespace + "/other: "},
		{"another namespace", m, moved, "the object given is FooMachine elsewhere/m: "},
		{"another UID", m, recreated, `the object given has UID "00000000-0000-0000-0000-000000000000", not "` + string(m.UID) + `": `},
		{"another unstructured kind", asUnstructured(m, "FooMachine"), asUnstructured(cluster, "FooCluster"),
			"the object given is FooCluster " + m.Namespace + "/m: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := patch.NewHelper(rec, tc.helper)
			require.NoError(t, err)
			_, err = h.HasChanges(tc.by)
			require.ErrorIs(t, err, patch.ErrWrongObject)
			err = h.Patch(ctx, tc.by)
			require.ErrorIs(t, err, patch.ErrWrongObject)
			assert.Contains(t, err.Error(), tc.want)
			require.ErrorIs(t, h.PatchSpec(ctx, tc.by), patch.ErrWrongObject)
			assert.Empty(t, rec.take(), "nothing sent")
		})
	}

	t.Run("the same object read again", func(t *testing.T) {
		h, err := patch.NewHelper(rec, m)
		require.NoError(t, err)
		again := reread(t, m)
		again.Spec.ProviderID = "foo://1"
		require.NoError(t, h.Patch(ctx, again))
		assert.Equal(t, []string{"patch"}, summary(rec.take()))
	})
}

// rendered renders conditions with every field, the time in whole seconds.
func rendered(conds []metav1.Condition) []string {
	var out []string
	for _, c := range conds {
		out = append(out, fmt.Sprintf("%s=%s/%s/%q@%d,gen%d", c.Type, c.Status, c.Reason, c.Message, c.LastTransitionTime.Unix(), c.ObservedGeneration))
	}
	return out
}
