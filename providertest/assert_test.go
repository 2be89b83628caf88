package providertest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/capkit/capkit/contract"
	"github.com/capkit/capkit/providertest"
)

// recorder is a providertest.TestingT that records failures, to test that assertions fail.
type recorder struct{ errs []string }

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) String() string { return strings.Join(r.errs, "\n") }

func memMachine(v contract.Version, provisioned bool, conds ...metav1.Condition) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(memMachineGVK)
	u.SetNamespace("ns")
	u.SetName("m1")
	if provisioned {
		_ = contract.InfraMachine(v).Provisioned().Set(u, true)
	}
	if len(conds) > 0 {
		_ = contract.InfraMachine(v).Conditions().Set(u, conds)
	}
	return u
}

func TestAssertCondition(t *testing.T) {
	ready := metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "Waiting", Message: "vm booting", LastTransitionTime: metav1.Now()}
	tests := []struct {
		name    string
		obj     *unstructured.Unstructured
		typ     string
		status  metav1.ConditionStatus
		reason  string
		failure string
	}{
		{"v1beta2 match", memMachine(contract.V1Beta2, false, ready), "Ready", "False", "Waiting", ""},
		{"v1beta1 match, any reason", memMachine(contract.V1Beta1, false, ready), "Ready", "False", "", ""},
		{"wrong status", memMachine(contract.V1Beta2, false, ready), "Ready", "True", "", `condition "Ready" is False/Waiting ("vm booting"), want True/<any reason>`},
		{"wrong reason", memMachine(contract.V1Beta2, false, ready), "Ready", "False", "Ready", "want False/Ready"},
		{"missing", memMachine(contract.V1Beta2, false, ready), "VMReady", "True", "", `no condition "VMReady" in status.conditions`},
		{"no conditions", memMachine(contract.V1Beta1, false), "Ready", "True", "", "conditions: none"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{}
			ok := providertest.AssertCondition(r, tc.obj, tc.typ, tc.status, tc.reason)
			assert.Equal(t, tc.failure == "", ok)
			if tc.failure != "" {
				assert.Contains(t, r.String(), tc.failure)
				assert.Contains(t, r.String(), `MemMachine "ns/m1"`)
			}
		})
	}
	typed := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Status: corev1.PodStatus{}}
	r := &recorder{}
	assert.False(t, providertest.AssertCondition(r, typed, "Ready", "True", ""), "typed objects are converted")
	assert.False(t, providertest.AssertCondition(r, nil, "Ready", "True", ""))
}

func TestAssertProvisioned(t *testing.T) {
	for _, v := range []contract.Version{contract.V1Beta1, contract.V1Beta2} {
		r := &recorder{}
		assert.True(t, providertest.AssertProvisioned(r, memMachine(v, true), v), v)
		assert.False(t, providertest.AssertProvisioned(r, memMachine(v, false, metav1.Condition{Type: "VMReady", Status: "False", Reason: "Booting"}), v), v)
		assert.Contains(t, r.String(), "is not provisioned")
		assert.Contains(t, r.String(), "VMReady=False/Booting", "the failure shows the conditions")
	}
	r := &recorder{}
	assert.False(t, providertest.AssertProvisioned(r, memMachine(contract.V1Beta1, true), contract.V1Beta2), "the v1beta1 field does not count for v1beta2")
}

func TestEventuallyProvisionedOnTheAPIServer(t *testing.T) {
	ctx := context.Background()
	ns := env.Namespace(t, "eventually")
	u := memMachine(contract.V1Beta2, false)
	u.SetNamespace(ns)
	require.NoError(t, env.Client.Create(ctx, u))

	r := &recorder{}
	assert.False(t, providertest.EventuallyProvisioned(r, env.Client, u.DeepCopy(), contract.V1Beta2, 300*time.Millisecond))
	assert.Contains(t, r.String(), "not true after 300ms")

	go func() {
		time.Sleep(200 * time.Millisecond)
		p := u.DeepCopy()
		_ = contract.InfraMachine(contract.V1Beta2).Provisioned().Set(p, true)
		_ = contract.InfraMachine(contract.V1Beta2).Conditions().Set(p, []metav1.Condition{{Type: "Ready", Status: "True", Reason: "Ready", LastTransitionTime: metav1.Now()}})
		_ = env.Client.Status().Update(ctx, p)
	}()
	got := u.DeepCopy()
	assert.True(t, providertest.EventuallyProvisioned(t, env.Client, got, contract.V1Beta2, 10*time.Second))
	assert.True(t, providertest.EventuallyCondition(t, env.Client, got, "Ready", "True", "Ready", 10*time.Second))

	missing := u.DeepCopy()
	missing.SetName("absent")
	r = &recorder{}
	assert.False(t, providertest.EventuallyCondition(r, env.Client, missing, "Ready", "True", "", 200*time.Millisecond))
	assert.Contains(t, r.String(), "not found")
}
