package conditions_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capkit/capkit/conditions"
)

// FooMachine stands for a provider's infrastructure machine type.
type FooMachine struct {
	metav1.ObjectMeta
	Status struct {
		Conditions []metav1.Condition
	}
}

// snippet:start accessors

// GetConditions implements conditions.Getter.
func (m *FooMachine) GetConditions() []metav1.Condition { return m.Status.Conditions }

// SetConditions implements conditions.Setter.
func (m *FooMachine) SetConditions(c []metav1.Condition) { m.Status.Conditions = c }

// snippet:end accessors

var (
	start = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	later = start.Add(time.Minute)
)

func show(m *FooMachine) {
	for _, c := range m.Status.Conditions {
		fmt.Printf("%s=%s reason=%s gen=%d at=%s msg=%q\n", c.Type, c.Status, c.Reason,
			c.ObservedGeneration, c.LastTransitionTime.UTC().Format(time.TimeOnly), c.Message)
	}
}

func ExampleSet() {
	m := &FooMachine{ObjectMeta: metav1.ObjectMeta{Generation: 2}}

	changed, _ := conditions.Set(m, metav1.Condition{Type: "VMReady", Status: metav1.ConditionFalse, Reason: "Creating"},
		conditions.WithTime(start))
	fmt.Println("changed:", changed)

	// Same status, new reason: LastTransitionTime stays at start.
	changed, _ = conditions.Set(m, metav1.Condition{Type: "VMReady", Status: metav1.ConditionFalse, Reason: "WaitingForIP"},
		conditions.WithTime(later))
	fmt.Println("changed:", changed)

	// Nothing new: no write needed.
	changed, _ = conditions.Set(m, metav1.Condition{Type: "VMReady", Status: metav1.ConditionFalse, Reason: "WaitingForIP"},
		conditions.WithTime(later))
	fmt.Println("changed:", changed)
	show(m)
	// Output:
	// changed: true
	// changed: true
	// changed: false
	// VMReady=False reason=WaitingForIP gen=2 at=12:00:00 msg=""
}

func ExampleSetFalse() {
	m := &FooMachine{}
	_, _ = conditions.SetFalse(m, "VMReady", "CreateFailed", "cannot create VM: quota exceeded", conditions.WithTime(start))
	show(m)

	_, err := conditions.SetFalse(m, "VMReady", "create failed", "")
	fmt.Println(errors.Is(err, conditions.ErrInvalidCondition))
	fmt.Println(err)
	// Output:
	// VMReady=False reason=CreateFailed gen=0 at=12:00:00 msg="cannot create VM: quota exceeded"
	// true
	// cannot set condition "VMReady": invalid reason "create failed": must match ^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$: invalid condition
}

func ExampleSetSummary() {
	m := &FooMachine{}
	steps := []string{"NetworkReady", "LoadBalancerReady", conditions.Deleting}
	negative := conditions.WithNegativePolarity(conditions.Deleting)

	_, _ = conditions.SetFalse(m, "NetworkReady", "QuotaExceeded", "subnet quota exceeded", conditions.WithTime(start))
	_, _ = conditions.SetFalse(m, conditions.Deleting, conditions.ReasonNotDeleting, "", conditions.WithTime(start))
	_, _ = conditions.SetSummary(m, steps, negative, conditions.WithTime(start))
	show(m)

	_, _ = conditions.SetTrue(m, "NetworkReady", "Provisioned", "", conditions.WithTime(later))
	_, _ = conditions.SetTrue(m, "LoadBalancerReady", "Provisioned", "", conditions.WithTime(later))
	_, _ = conditions.SetSummary(m, steps, negative, conditions.WithTime(later))
	fmt.Println(conditions.IsTrue(m, conditions.Ready), conditions.GetReason(m, conditions.Ready))
	// Output:
	// Ready=False reason=NotReady gen=0 at=12:00:00 msg="NetworkReady: subnet quota exceeded; LoadBalancerReady not reported"
	// Deleting=False reason=NotDeleting gen=0 at=12:00:00 msg=""
	// NetworkReady=False reason=QuotaExceeded gen=0 at=12:00:00 msg="subnet quota exceeded"
	// true Ready
}

func ExampleSetPaused() {
	m := &FooMachine{ObjectMeta: metav1.ObjectMeta{Generation: 4}}
	_, _ = conditions.SetPaused(m, true, "Cluster spec.paused is set to true", conditions.WithTime(start))
	show(m)

	_, _ = conditions.SetPaused(m, false, "", conditions.WithTime(later))
	show(m)
	// Output:
	// Paused=True reason=Paused gen=4 at=12:00:00 msg="Cluster spec.paused is set to true"
	// Paused=False reason=NotPaused gen=4 at=12:01:00 msg=""
}

func ExampleForSlice() {
	var status struct{ Conditions []metav1.Condition }
	s := conditions.ForSlice(&status.Conditions)
	_, _ = conditions.SetTrue(s, "VMReady", "Running", "", conditions.WithObservedGeneration(1))
	_, _ = conditions.SetUnknown(s, conditions.Ready, "", "")
	for _, c := range status.Conditions {
		fmt.Println(c.Type, c.Status, c.Reason, c.ObservedGeneration)
	}
	fmt.Println("empty reason:", conditions.GetReason(s, conditions.Ready) == conditions.ReasonUnspecified)

	// A nil slice pointer gives a nil Setter: writes fail, nothing panics.
	var missing *[]metav1.Condition
	_, err := conditions.SetTrue(conditions.ForSlice(missing), "VMReady", "Running", "")
	fmt.Println(errors.Is(err, conditions.ErrNilSetter))
	// Output:
	// Ready Unknown Unspecified 0
	// VMReady True Running 1
	// empty reason: true
	// true
}

// The reason of Ready says why the object is not ready; a provider or a test compares it with the
// constants.
func ExampleSetSummary_reasons() {
	m := &FooMachine{}
	steps := []string{"NetworkReady", "VMReady"}
	opts := []conditions.Option{conditions.WithTime(start)}
	summarize := func() {
		_, _ = conditions.SetSummary(m, steps, opts...)
		switch conditions.GetReason(m, conditions.Ready) {
		case conditions.ReasonStepsNotReported:
			fmt.Println("a step has not reported:", conditions.GetMessage(m, conditions.Ready))
		case conditions.ReasonReadyUnknown:
			fmt.Println("a step is Unknown:", conditions.GetMessage(m, conditions.Ready))
		case conditions.ReasonNotReady:
			fmt.Println("a step failed:", conditions.GetMessage(m, conditions.Ready))
		case conditions.ReasonReady:
			fmt.Println("ready")
		}
	}
	_, _ = conditions.SetTrue(m, "NetworkReady", "Provisioned", "", opts...)
	summarize()
	_, _ = conditions.SetUnknown(m, "VMReady", "Booting", "waiting for the VM", opts...)
	summarize()
	_, _ = conditions.SetFalse(m, "VMReady", "QuotaExceeded", "instance quota exceeded", opts...)
	summarize()
	_, _ = conditions.SetTrue(m, "VMReady", "Running", "", opts...)
	summarize()
	// Output:
	// a step has not reported: VMReady not reported
	// a step is Unknown: VMReady: waiting for the VM
	// a step failed: VMReady: instance quota exceeded
	// ready
}

// Delete removes the condition of a step that no longer applies, here a load balancer the spec stopped
// asking for. A missing condition reads as Unknown.
func ExampleDelete() {
	m := &FooMachine{}
	_, _ = conditions.SetTrue(m, "LoadBalancerReady", "Provisioned", "", conditions.WithTime(start))
	fmt.Println(conditions.IsTrue(m, "LoadBalancerReady"), conditions.IsFalse(m, "LoadBalancerReady"), conditions.IsUnknown(m, "LoadBalancerReady"))

	fmt.Println("deleted:", conditions.Delete(m, "LoadBalancerReady"))
	fmt.Println("deleted again:", conditions.Delete(m, "LoadBalancerReady"))
	fmt.Println(conditions.Has(m, "LoadBalancerReady"), conditions.IsUnknown(m, "LoadBalancerReady"))
	// Output:
	// true false false
	// deleted: true
	// deleted again: false
	// false true
}

// Each reconcile step is reported as a condition, then summarized into Ready.
func Example_steps() {
	ctx := context.Background()
	createVM := func(context.Context) error { return errors.New("cannot create VM: quota exceeded") }
	m := &FooMachine{}
	_, _ = conditions.SetTrue(m, "NetworkReady", "Provisioned", "")
	// snippet:start steps
	if err := createVM(ctx); err != nil {
		_, _ = conditions.SetFalse(m, "VMReady", "CreateFailed", "cannot create VM: quota exceeded")
	} else {
		_, _ = conditions.SetTrue(m, "VMReady", "Created", "")
	}
	changed, err := conditions.SetSummary(m, []string{"NetworkReady", "VMReady"})
	// snippet:end steps
	fmt.Println(changed, err)
	fmt.Println(conditions.GetReason(m, conditions.Ready), conditions.GetMessage(m, conditions.Ready))
	// Output:
	// true <nil>
	// NotReady VMReady: cannot create VM: quota exceeded
}

// Pausing is reported the way Cluster API v1beta2 does, at the start of reconcile: Paused is true when the
// owner Cluster's spec.paused is set or the object has the paused annotation.
func Example_paused() {
	var cluster struct{ Spec struct{ Paused bool } } // the owner Cluster, as read by the reconciler
	m := &FooMachine{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"cluster.x-k8s.io/paused": ""}}}
	// snippet:start paused
	_, annotated := m.Annotations["cluster.x-k8s.io/paused"]
	_, err := conditions.SetPaused(m, cluster.Spec.Paused || annotated, "")
	// snippet:end paused
	fmt.Println(err, conditions.IsTrue(m, conditions.Paused), conditions.GetReason(m, conditions.Paused))
	// Output: <nil> true Paused
}
