package patch_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/internal/testtypes"
	"github.com/capkit/capkit/providertest/testenv"
)

var env *testenv.Environment

// TestMain starts envtest with the test types of internal/testtypes and Widget.
func TestMain(m *testing.M) {
	crds, err := testtypes.CRDObjects()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	s := testtypes.Scheme()
	s.AddKnownTypes(widgetGroupVersion, &Widget{}, &WidgetList{})
	metav1.AddToGroupVersion(s, widgetGroupVersion)
	testenv.Main(m, &env, testenv.WithCRDs(append(crds, widgetCRD())...), testenv.WithScheme(s))
}

// newMachine creates a FooMachine with a finalizer and a condition and returns it as read back.
func newMachine(t *testing.T, c client.Client) *testtypes.FooMachine {
	t.Helper()
	ctx := context.Background()
	ns := env.Namespace(t, "patch")
	m := &testtypes.FooMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "m", Finalizers: []string{"a.io/one"}},
		Spec: testtypes.FooMachineSpec{Size: "small"}}
	require.NoError(t, c.Create(ctx, m))
	m.Status.Conditions = []metav1.Condition{cond("Ready", metav1.ConditionFalse)}
	require.NoError(t, c.Status().Update(ctx, m))
	got := &testtypes.FooMachine{}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(m), got))
	return got
}

func cond(t string, s metav1.ConditionStatus) metav1.Condition {
	return metav1.Condition{Type: t, Status: s, Reason: "Test", LastTransitionTime: metav1.Now().Rfc3339Copy()}
}

// reread returns the server's copy of m.
func reread(t *testing.T, m *testtypes.FooMachine) *testtypes.FooMachine {
	t.Helper()
	got := &testtypes.FooMachine{}
	require.NoError(t, env.Client.Get(t.Context(), client.ObjectKeyFromObject(m), got))
	return got
}

// addTheirCondition is another controller writing the condition Theirs=True on m's object after m was read.
func addTheirCondition(t *testing.T, m *testtypes.FooMachine) {
	t.Helper()
	other := reread(t, m)
	other.Status.Conditions = append(other.Status.Conditions, cond("Theirs", metav1.ConditionTrue))
	require.NoError(t, env.Client.Status().Update(t.Context(), other))
}

// addTheirFinalizer is another controller adding the finalizer b.io/theirs to m's object after m was read.
func addTheirFinalizer(t *testing.T, m *testtypes.FooMachine) {
	t.Helper()
	other := reread(t, m)
	other.Finalizers = append(other.Finalizers, "b.io/theirs")
	require.NoError(t, env.Client.Update(t.Context(), other))
}

func conditionTypes(m *testtypes.FooMachine) []string {
	var out []string
	for _, c := range m.Status.Conditions {
		out = append(out, c.Type+"="+string(c.Status))
	}
	return out
}
