package capienv_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/capkit/capkit/test/internal/capienv"
)

func TestDumpShowsPhaseAndConditions(t *testing.T) {
	scheme := runtime.NewScheme()
	require.NoError(t, clusterv1.AddToScheme(scheme))
	m := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "m0", Finalizers: []string{"f"}}}
	m.Status.Phase = "Provisioning"
	m.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionFalse, Reason: "NotReady", Message: "a\nb"}}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(m).Build()

	out := capienv.Dump(t.Context(), c, "ns", clusterv1.GroupVersion.WithKind("Machine"))
	assert.Contains(t, out, `Machine ns/m0 phase="Provisioning" finalizers=[f] deleting=false`)
	assert.Contains(t, out, "  Ready=False NotReady: a b\n", "one line per condition")
	assert.NotContains(t, capienv.Dump(t.Context(), c, "other", clusterv1.GroupVersion.WithKind("Machine")), "m0")
}
