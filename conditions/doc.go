// Package conditions reads and writes metav1.Condition lists the way Cluster API v1beta2
// expects them on infrastructure objects.
//
// # Overview
//
// Every helper works on two small interfaces: Getter (GetConditions) and Setter (Getter plus
// SetConditions). Provider types implement them in two lines; a bare slice such as
// &obj.Status.Conditions is adapted with ForSlice. All helpers accept nil: readers treat a nil
// Getter as an object without conditions, writers return ErrNilSetter, and nothing panics.
//
// Writers (Set, SetTrue, SetFalse, SetUnknown, SetPaused, SetSummary):
//
//   - keep LastTransitionTime when the Status does not change, even if Reason or Message do,
//     and set it to the clock's time (seconds precision) when the Status changes or the
//     condition is new; WithTime fixes it in tests;
//   - set ObservedGeneration from WithObservedGeneration, else from the condition, else from
//     the object when it has GetGeneration (every type embedding metav1.ObjectMeta has it);
//   - write ReasonUnspecified when the reason is empty, because the API server requires one;
//   - validate Type, Status, Reason, Message length and ObservedGeneration against the
//     metav1.Condition schema, and return an error wrapping ErrInvalidCondition that names the
//     field and the value instead of writing a condition the API server would reject;
//   - keep the list sorted (Ready first, then by type, see Sort) and report whether anything
//     changed, so a reconciler can skip a patch when nothing did.
//
// Readers are Get (a copy), Has, IsTrue, IsFalse, IsUnknown (also true when missing),
// GetReason and GetMessage. Delete removes a condition.
//
// # Summary into Ready
//
// SetSummary computes Ready from the step conditions a reconciler writes, one per step. A step
// is good when True, or when False for types given to WithNegativePolarity (Deleting, Paused).
// Any bad step makes Ready False (ReasonNotReady); otherwise an Unknown step makes it Unknown
// (ReasonReadyUnknown); otherwise a step that has not been written yet makes it Unknown
// (ReasonStepsNotReported); otherwise Ready is True (ReasonReady). The message names every
// step that is not good, in the order given, for example
// "NetworkReady: subnet quota exceeded; LoadBalancerReady not reported".
//
// # Reasons
//
// Every condition reason capkit writes is a constant of this package, in one place: those of the helpers
// above, those of the reconcilers' step conditions (reconcile.Classify says which one each outcome of a
// step gets: ReasonReady, ReasonInProgress, ReasonThrottled, ReasonTerminalError, ReasonTransientError,
// ReasonDeleting, and the waits ReasonWaitingForClusterInfrastructure and ReasonWaitingForBootstrapData),
// those of ensure.Exists's results and errors (ReasonInvalidParameters, ReasonDriftCorrected, ...) and
// those of identity refusals (ReasonIdentityNotFound, ...). A provider's own reasons live with the provider.
//
// # Secrets
//
// Messages are stored in status and shown by kubectl to anyone who can read the object.
// Callers must never put secrets, bootstrap data or credentials in a reason or a message, and
// must not copy cloud API error bodies into them unchecked. The helpers of this package do not
// log; they copy messages exactly as given.
//
// # Tutorial
//
// Implement the interfaces on the provider's infrastructure type:
//
//	// GetConditions implements conditions.Getter.
//	func (m *FooMachine) GetConditions() []metav1.Condition { return m.Status.Conditions }
//
//	// SetConditions implements conditions.Setter.
//	func (m *FooMachine) SetConditions(c []metav1.Condition) { m.Status.Conditions = c }
//
// Report each reconcile step as a condition, then summarize into Ready (Example_steps):
//
//	if err := createVM(ctx); err != nil {
//		_, _ = conditions.SetFalse(m, "VMReady", "CreateFailed", "cannot create VM: quota exceeded")
//	} else {
//		_, _ = conditions.SetTrue(m, "VMReady", "Created", "")
//	}
//	changed, err := conditions.SetSummary(m, []string{"NetworkReady", "VMReady"})
//
// Report pausing the way CAPI v1beta2 does, at the start of reconcile (Example_paused):
//
//	_, annotated := m.Annotations["cluster.x-k8s.io/paused"]
//	_, err := conditions.SetPaused(m, cluster.Spec.Paused || annotated, "")
//
// An error from a writer means the caller passed an invalid type or reason: a programming
// error to fix, not a condition to retry.
package conditions
