package providertest

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capkit/capkit/contract"
)

// TestingT is the part of *testing.T the assertions use; *testing.T and *testing.B implement it.
type TestingT interface {
	Helper()
	Errorf(format string, args ...any)
}

// defaultPollInterval is how often the Eventually assertions read the object again.
const defaultPollInterval = 100 * time.Millisecond

// ToUnstructured returns obj as an unstructured object: obj itself when it is one, a converted copy otherwise.
func ToUnstructured(obj runtime.Object) (*unstructured.Unstructured, error) {
	switch o := obj.(type) {
	case nil:
		return nil, fmt.Errorf("cannot convert a nil object")
	case *unstructured.Unstructured:
		if o == nil {
			return nil, fmt.Errorf("cannot convert a nil object")
		}
		return o, nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("cannot convert %T to unstructured: %w", obj, err)
	}
	return &unstructured.Unstructured{Object: m}, nil
}

// conditionsOf returns the metav1.Conditions of obj: status.v1beta2.conditions when present (objects of
// contract or API version v1beta1 keep them there), else status.conditions. The second result is the path
// they were read from.
func conditionsOf(obj runtime.Object) ([]metav1.Condition, string, error) {
	u, err := ToUnstructured(obj)
	if err != nil {
		return nil, "", err
	}
	for _, v := range []contract.Version{contract.V1Beta1, contract.V1Beta2} {
		f := contract.InfraCluster(v).Conditions()
		if !f.Has(u) {
			continue
		}
		conds, err := f.Get(u)
		if err != nil {
			return nil, f.Path().String(), fmt.Errorf("cannot read the conditions of %s: %w", describe(u), err)
		}
		return conds, f.Path().String(), nil
	}
	return nil, "status.conditions", nil
}

// AssertCondition asserts that obj has a condition of type condType with status; when reason is not empty
// the reason must match too. It reports the conditions obj has when it fails, and returns whether it passed.
func AssertCondition(t TestingT, obj runtime.Object, condType string, status metav1.ConditionStatus, reason string) bool {
	t.Helper()
	if err := conditionMatches(obj, condType, status, reason); err != nil {
		t.Errorf("%v", err)
		return false
	}
	return true
}

func conditionMatches(obj runtime.Object, condType string, status metav1.ConditionStatus, reason string) error {
	conds, path, err := conditionsOf(obj)
	if err != nil {
		return err
	}
	u, _ := ToUnstructured(obj)
	for _, c := range conds {
		if c.Type != condType {
			continue
		}
		if c.Status != status || (reason != "" && c.Reason != reason) {
			return fmt.Errorf("%s: condition %q is %s/%s (%q), want %s/%s", describe(u), condType, c.Status, c.Reason, c.Message, status, orAny(reason))
		}
		return nil
	}
	return fmt.Errorf("%s: no condition %q in %s, want %s/%s; conditions: %s", describe(u), condType, path, status, orAny(reason), summarize(conds))
}

// AssertProvisioned asserts that the InfraCluster or InfraMachine obj reports provisioned at the path of
// contract version v: status.initialization.provisioned (v1beta2) or status.ready (v1beta1).
func AssertProvisioned(t TestingT, obj runtime.Object, v contract.Version) bool {
	t.Helper()
	if err := CheckProvisioned(obj, v); err != nil {
		t.Errorf("%v", err)
		return false
	}
	return true
}

// CheckProvisioned returns nil when the InfraCluster or InfraMachine obj reports provisioned at the path of
// contract version v, else an error that names the object, the field and the object's conditions.
func CheckProvisioned(obj runtime.Object, v contract.Version) error {
	u, err := ToUnstructured(obj)
	if err != nil {
		return err
	}
	f := contract.InfraMachine(v).Provisioned()
	ok, err := f.Get(u)
	if err != nil || !ok {
		conds, _, _ := conditionsOf(u)
		return fmt.Errorf("%s is not provisioned: %s is %s; conditions: %s", describe(u), f.Path(), valueOrAbsent(ok, err), summarize(conds))
	}
	return nil
}

// EventuallyProvisioned reads obj through c until it reports provisioned at the path of contract version
// v, or fails after timeout with the last state read. obj is updated with what was read last.
func EventuallyProvisioned(t TestingT, c client.Reader, obj client.Object, v contract.Version, timeout time.Duration) bool {
	t.Helper()
	return eventually(t, c, obj, timeout, func() error { return CheckProvisioned(obj, v) })
}

// EventuallyCondition reads obj through c until it has condition condType with status (and reason, when
// not empty), or fails after timeout with the conditions read last.
func EventuallyCondition(t TestingT, c client.Reader, obj client.Object, condType string, status metav1.ConditionStatus, reason string, timeout time.Duration) bool {
	t.Helper()
	return eventually(t, c, obj, timeout, func() error { return conditionMatches(obj, condType, status, reason) })
}

func eventually(t TestingT, c client.Reader, obj client.Object, timeout time.Duration, check func() error) bool {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(context.Background(), defaultPollInterval, timeout, true, func(context.Context) (bool, error) {
		// Not the poll's context: a read cut short by the deadline would hide why the last one failed.
		if err := c.Get(context.Background(), client.ObjectKeyFromObject(obj), obj); err != nil {
			last = fmt.Errorf("cannot get %s/%s: %w", obj.GetNamespace(), obj.GetName(), err)
			return false, nil
		}
		last = check()
		return last == nil, nil
	})
	if err != nil {
		t.Errorf("not true after %s: %v", timeout, last)
		return false
	}
	return true
}

func describe(u *unstructured.Unstructured) string {
	if u.GetNamespace() == "" {
		return fmt.Sprintf("%s %q", u.GetKind(), u.GetName())
	}
	return fmt.Sprintf("%s %q", u.GetKind(), u.GetNamespace()+"/"+u.GetName())
}

func summarize(conds []metav1.Condition) string {
	if len(conds) == 0 {
		return "none"
	}
	s := ""
	for i, c := range conds {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s=%s/%s", c.Type, c.Status, c.Reason)
	}
	return s
}

func orAny(reason string) string {
	if reason == "" {
		return "<any reason>"
	}
	return reason
}

func valueOrAbsent(v bool, err error) string {
	if err != nil {
		return "absent"
	}
	return fmt.Sprint(v)
}
